//! The seccomp filter of sandboxed commands: a default-allow list of denials, aimed at
//! what escapes the other layers (network, debugging other processes, namespaces and
//! mounts, kernel interfaces that bypass seccomp).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

use crate::{Layer, SandboxError};

/// System calls refused outright (`EPERM`).
const DENIED: &[(i64, &str)] = &[
    (libc::SYS_ptrace, "ptrace"),
    (libc::SYS_process_vm_readv, "process_vm_readv"),
    (libc::SYS_process_vm_writev, "process_vm_writev"),
    (libc::SYS_mount, "mount"),
    (libc::SYS_umount2, "umount2"),
    (libc::SYS_pivot_root, "pivot_root"),
    (libc::SYS_chroot, "chroot"),
    (libc::SYS_move_mount, "move_mount"),
    (libc::SYS_open_tree, "open_tree"),
    (libc::SYS_fsopen, "fsopen"),
    (libc::SYS_fsmount, "fsmount"),
    (libc::SYS_fsconfig, "fsconfig"),
    (libc::SYS_fspick, "fspick"),
    (libc::SYS_mount_setattr, "mount_setattr"),
    (libc::SYS_unshare, "unshare"),
    (libc::SYS_setns, "setns"),
    (libc::SYS_bpf, "bpf"),
    (libc::SYS_perf_event_open, "perf_event_open"),
    (libc::SYS_userfaultfd, "userfaultfd"),
    (libc::SYS_kexec_load, "kexec_load"),
    (libc::SYS_kexec_file_load, "kexec_file_load"),
    (libc::SYS_init_module, "init_module"),
    (libc::SYS_finit_module, "finit_module"),
    (libc::SYS_delete_module, "delete_module"),
    (libc::SYS_reboot, "reboot"),
    (libc::SYS_swapon, "swapon"),
    (libc::SYS_swapoff, "swapoff"),
    (libc::SYS_acct, "acct"),
    (libc::SYS_keyctl, "keyctl"),
    (libc::SYS_add_key, "add_key"),
    (libc::SYS_request_key, "request_key"),
    (libc::SYS_open_by_handle_at, "open_by_handle_at"),
    // io_uring can open sockets and files without passing through seccomp.
    (libc::SYS_io_uring_setup, "io_uring_setup"),
    (libc::SYS_io_uring_enter, "io_uring_enter"),
    (libc::SYS_io_uring_register, "io_uring_register"),
];

/// `clone` flags that would create namespaces.
const NAMESPACE_FLAGS: [libc::c_int; 7] = [
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWCGROUP,
];

/// `ioctl` requests refused: typing into a terminal's input queue.
// The request type is `c_ulong` with glibc and `c_int` with musl.
#[allow(clippy::unnecessary_cast)]
const DENIED_IOCTLS: [u64; 2] = [libc::TIOCSTI as u64, libc::TIOCLINUX as u64];

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SandboxError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(filter_error)
}

fn filter_error(e: impl std::fmt::Display) -> SandboxError {
    SandboxError::Unavailable {
        layer: Layer::Seccomp,
        detail: e.to_string(),
    }
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, SandboxError> {
    SeccompRule::new(conditions).map_err(filter_error)
}

/// The main filter: [`DENIED`], namespace-creating `clone`, terminal injection, and
/// (without network) every socket but `AF_UNIX`.
pub(crate) fn main_filter(allow_network: bool) -> Result<BpfProgram, SandboxError> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        DENIED.iter().map(|(nr, _)| (*nr, Vec::new())).collect();
    let mut clone = Vec::new();
    for flag in NAMESPACE_FLAGS {
        let flag = flag as u64;
        clone.push(rule(vec![condition(
            0,
            SeccompCmpOp::MaskedEq(flag),
            flag,
        )?])?);
    }
    rules.insert(libc::SYS_clone, clone);
    let mut ioctl = Vec::new();
    for request in DENIED_IOCTLS {
        ioctl.push(rule(vec![condition(1, SeccompCmpOp::Eq, request)?])?);
    }
    rules.insert(libc::SYS_ioctl, ioctl);
    if !allow_network {
        rules.insert(
            libc::SYS_socket,
            vec![rule(vec![condition(
                0,
                SeccompCmpOp::Ne,
                libc::AF_UNIX as u64,
            )?])?],
        );
    }
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(filter_error)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(filter_error)?;
    filter.try_into().map_err(filter_error)
}

// Classic BPF, for the second filter (seccompiler matches exact system call numbers only).
const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_JSET_K: u16 = 0x45;
const BPF_RET_K: u16 = 0x06;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
/// System call numbers of the x32 ABI have this bit; x86-64 filters would not see them.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

fn op(code: u16, jt: u8, jf: u8, k: u32) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// The second filter answers `ENOSYS`: to `clone3` (its flags are behind a pointer, so
/// the C library falls back to `clone`, which the main filter can check) and to the x32
/// system call numbers (another way around a filter keyed on x86-64 numbers).
pub(crate) fn enosys_filter() -> BpfProgram {
    let enosys = SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    vec![
        // Load the system call number (offset 0 of `struct seccomp_data`).
        op(BPF_LD_W_ABS, 0, 0, 0),
        op(BPF_JSET_K, 2, 0, X32_SYSCALL_BIT),
        op(BPF_JEQ_K, 1, 0, libc::SYS_clone3 as u32),
        op(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        op(BPF_RET_K, 0, 0, enosys),
    ]
}

/// Installs both filters on this thread (inherited by every child).
pub(crate) fn apply(allow_network: bool) -> Result<(), SandboxError> {
    let main = main_filter(allow_network)?;
    seccompiler::apply_filter(&enosys_filter()).map_err(filter_error)?;
    seccompiler::apply_filter(&main).map_err(filter_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_compile_with_and_without_network() {
        let closed = main_filter(false).expect("filter");
        let open = main_filter(true).expect("filter");
        assert!(
            closed.len() > open.len(),
            "{} vs {}",
            closed.len(),
            open.len()
        );
        assert_eq!(enosys_filter().len(), 5);
    }
}
