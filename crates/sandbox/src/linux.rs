//! The two stages of the Linux sandbox (see the crate documentation) and what the
//! kernel supports.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};
use rustix::fs::StatVfsMountFlags;
use rustix::mount::{MountFlags, MountPropagationFlags};
use rustix::process::{Signal, WaitOptions};
use rustix::thread::{CapabilitiesSecureBits, CapabilitySet, CapabilitySets, UnshareFlags};

use crate::{Layer, LayerReport, Policy, SandboxError, seccomp};

/// File system rights handled by the sandbox: those of Landlock ABI 3 (through
/// truncation). Device ioctls (ABI 5) stay allowed: terminals and `/dev/null` need them.
const FS_ABI: ABI = ABI::V3;

fn setup(action: &str) -> impl FnOnce(rustix::io::Errno) -> SandboxError + '_ {
    move |e| SandboxError::Setup {
        action: action.to_owned(),
        detail: e.to_string(),
    }
}

fn simulated(policy: &Policy, layer: Layer) -> Result<(), SandboxError> {
    match policy.simulate_missing {
        Some(missing) if missing == layer => Err(SandboxError::Unavailable {
            layer,
            detail: "simulated for a test (simulate_missing)".into(),
        }),
        _ => Ok(()),
    }
}

/// Stage 1: namespaces and mounts, then stage 2 as PID 1 of the new PID namespace.
pub(crate) fn outer(policy: &Policy, argv: &[OsString]) -> Result<i32, SandboxError> {
    // The agent dying (even killed) takes the command with it.
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))
        .map_err(setup("ask to die with the agent"))?;
    simulated(policy, Layer::Namespaces)?;
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    // SAFETY: `unshare` is unsafe only with `UnshareFlags::FILES`, which could leave other
    // threads with descriptors of another table; this process is single-threaded (the
    // helper's `main` starts no thread) and does not pass FILES.
    #[allow(unsafe_code)]
    let unshared = unsafe {
        rustix::thread::unshare_unsafe(
            UnshareFlags::NEWUSER | UnshareFlags::NEWNS | UnshareFlags::NEWPID,
        )
    };
    unshared.map_err(|e| SandboxError::Unavailable {
        layer: Layer::Namespaces,
        detail: format!(
            "cannot create user, mount and PID namespaces ({e}); unprivileged user \
             namespaces may be turned off (sysctl user.max_user_namespaces, \
             kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns)"
        ),
    })?;
    // The same user and group inside: files keep their owners.
    for (file, text) in [
        ("/proc/self/setgroups", "deny".to_owned()),
        ("/proc/self/uid_map", format!("{uid} {uid} 1")),
        ("/proc/self/gid_map", format!("{gid} {gid} 1")),
    ] {
        std::fs::write(file, text).map_err(|e| SandboxError::Setup {
            action: format!("write {file}"),
            detail: e.to_string(),
        })?;
    }
    // Nothing mounted here propagates back to the machine.
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )
    .map_err(setup("make the mounts private"))?;
    for path in &policy.read_only {
        if is_real(path) {
            read_only_bind(path, path)?;
        }
    }
    for path in &policy.hidden {
        hide(path)?;
    }
    // Stage 2 runs as this user inside the namespace; it needs these two capabilities
    // to mount /proc and lock the secure bits, and drops them before the command.
    let keep = CapabilitySet::SYS_ADMIN | CapabilitySet::SETPCAP;
    let mut sets = rustix::thread::capabilities(None).map_err(setup("read capabilities"))?;
    sets.inheritable |= keep;
    rustix::thread::set_capabilities(None, sets).map_err(setup("set capabilities"))?;
    for capability in [CapabilitySet::SYS_ADMIN, CapabilitySet::SETPCAP] {
        rustix::thread::configure_capability_in_ambient_set(capability, true)
            .map_err(setup("pass capabilities to stage 2"))?;
    }
    let encoded =
        serde_json::to_string(policy).map_err(|e| SandboxError::BadPolicy(e.to_string()))?;
    let mut inner = Command::new("/proc/self/exe")
        .arg("sandbox-exec")
        .arg("--inner")
        .arg(encoded)
        .arg("--")
        .args(argv)
        .spawn()
        .map_err(|e| SandboxError::Setup {
            action: "start the sandbox's PID 1".into(),
            detail: e.to_string(),
        })?;
    let status = inner.wait().map_err(|e| SandboxError::Setup {
        action: "wait for the sandbox".into(),
        detail: e.to_string(),
    })?;
    Ok(exit_code(status))
}

fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

/// Exists and is not a symbolic link (a link is judged where it points, and mounting
/// through it could reach outside).
fn is_real(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| !m.file_type().is_symlink())
}

/// Mount flags a bind mount of `path` must keep: in a user namespace the kernel refuses
/// a remount that would drop `nosuid`, `nodev` or `noexec` of the original mount.
fn locked_flags(path: &Path) -> MountFlags {
    let Ok(stat) = rustix::fs::statvfs(path) else {
        return MountFlags::empty();
    };
    let mut flags = MountFlags::empty();
    for (have, keep) in [
        (StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
        (StatVfsMountFlags::NOATIME, MountFlags::NOATIME),
        (StatVfsMountFlags::NODIRATIME, MountFlags::NODIRATIME),
        (StatVfsMountFlags::RELATIME, MountFlags::RELATIME),
    ] {
        if stat.f_flag.contains(have) {
            flags |= keep;
        }
    }
    flags
}

fn read_only_bind(source: &Path, target: &Path) -> Result<(), SandboxError> {
    let failed = |action: &str, e: rustix::io::Errno| SandboxError::Setup {
        action: format!("{action} {}", target.display()),
        detail: e.to_string(),
    };
    rustix::mount::mount_bind(source, target).map_err(|e| failed("bind", e))?;
    rustix::mount::mount_remount(
        target,
        MountFlags::BIND | MountFlags::RDONLY | locked_flags(source),
        "",
    )
    .map_err(|e| failed("make read-only", e))
}

/// A directory becomes an empty read-only one; anything else an empty read-only file.
fn hide(path: &Path) -> Result<(), SandboxError> {
    let Ok(meta) = path.symlink_metadata() else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        // Hiding follows the link's target, which the list names when it matters.
        return Ok(());
    }
    if meta.is_dir() {
        rustix::mount::mount(
            "tmpfs",
            path,
            "tmpfs",
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            Some(c"size=4k,mode=0555"),
        )
        .map_err(|e| SandboxError::Setup {
            action: format!("hide {}", path.display()),
            detail: e.to_string(),
        })
    } else {
        read_only_bind(Path::new("/dev/null"), path)
    }
}

/// Stage 2, PID 1 of the new PID namespace: a private /proc, no capabilities, a new
/// session, Landlock, seccomp; then the command, and orphans reaped until it ends.
pub(crate) fn inner(policy: &Policy, argv: &[OsString]) -> Result<i32, SandboxError> {
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))
        .map_err(setup("ask to die with stage 1"))?;
    rustix::mount::mount(
        "proc",
        "/proc",
        "proc",
        MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
        None,
    )
    .map_err(setup("mount a private /proc"))?;
    drop_capabilities()?;
    // No controlling terminal: the command cannot open /dev/tty to type into the user's
    // shell or draw on the screen.
    rustix::process::setsid().map_err(setup("start a new session"))?;
    rustix::thread::set_no_new_privs(true).map_err(setup("set no_new_privs"))?;
    simulated(policy, Layer::Landlock)?;
    landlock(policy)?;
    simulated(policy, Layer::Seccomp)?;
    seccomp::apply(policy.allow_network)?;
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| SandboxError::BadPolicy("no command to run".into()))?;
    let child = match Command::new(program).args(args).spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!(
                "{} cannot run {}: {e}",
                crate::MESSAGE_PREFIX,
                program.to_string_lossy()
            );
            return Ok(127);
        }
    };
    let command = rustix::process::Pid::from_child(&child);
    // PID 1 adopts every orphan; reap them until the command itself ends. Returning ends
    // the namespace, and the kernel kills whatever is left.
    loop {
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some((pid, status))) if pid == command => {
                return Ok(status
                    .exit_status()
                    .or_else(|| status.terminating_signal().map(|s| 128 + s))
                    .unwrap_or(1));
            }
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => {
                return Err(SandboxError::Setup {
                    action: "wait for the command".into(),
                    detail: e.to_string(),
                });
            }
        }
    }
}

fn drop_capabilities() -> Result<(), SandboxError> {
    // Running as root inside must not give capabilities back at exec.
    rustix::thread::set_capabilities_secure_bits(
        CapabilitiesSecureBits::NO_ROOT
            | CapabilitiesSecureBits::NO_ROOT_LOCKED
            | CapabilitiesSecureBits::NO_SETUID_FIXUP
            | CapabilitiesSecureBits::NO_SETUID_FIXUP_LOCKED
            | CapabilitiesSecureBits::KEEP_CAPS_LOCKED
            | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE,
    )
    .map_err(setup("lock the capability secure bits"))?;
    rustix::thread::clear_ambient_capability_set().map_err(setup("clear ambient capabilities"))?;
    rustix::thread::set_capabilities(
        None,
        CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        },
    )
    .map_err(setup("drop capabilities"))
}

fn landlock(policy: &Policy) -> Result<(), SandboxError> {
    let failed = |e: landlock::RulesetError| SandboxError::Unavailable {
        layer: Layer::Landlock,
        detail: e.to_string(),
    };
    let all = AccessFs::from_all(FS_ABI);
    let mut ruleset = Ruleset::default()
        // File system rules are the point: without them, refuse.
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .map_err(failed)?
        // Truncation and cross-directory renames where the kernel knows them.
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(failed)?
        // Signals and abstract sockets stay inside the sandbox (Linux 6.12+).
        .scope(Scope::from_all(ABI::V6))
        .map_err(failed)?;
    if !policy.allow_network {
        // TCP bind/connect denied by Landlock too (Linux 6.7+); seccomp denies the rest.
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI::V4))
            .map_err(failed)?;
    }
    let writable = policy.writable_roots();
    let status = ruleset
        .create()
        .map_err(failed)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(FS_ABI)))
        .map_err(failed)?
        .add_rules(path_beneath_rules(
            writable.iter().filter(|p| p.exists()),
            all,
        ))
        .map_err(failed)?
        .add_rules(path_beneath_rules(
            ["/dev/null"],
            AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
        ))
        .map_err(failed)?
        .restrict_self()
        .map_err(failed)?;
    match status.ruleset {
        RulesetStatus::NotEnforced => Err(SandboxError::Unavailable {
            layer: Layer::Landlock,
            detail: "the kernel does not enforce Landlock (built without it, or not in the \
                     `lsm=` boot list)"
                .into(),
        }),
        RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => Ok(()),
    }
}

/// The newest Landlock ABI the kernel accepts, probing from the newest this build knows.
fn landlock_abi() -> Option<ABI> {
    [ABI::V6, ABI::V5, ABI::V4, ABI::V3, ABI::V2, ABI::V1]
        .into_iter()
        .find(|abi| {
            Ruleset::default()
                .set_compatibility(CompatLevel::HardRequirement)
                .handle_access(AccessFs::from_all(*abi))
                .and_then(|r| r.create())
                .is_ok()
        })
}

fn read_number(path: &str) -> Option<i64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

pub(crate) fn kernel_support() -> Vec<LayerReport> {
    let root = rustix::process::getuid().is_root();
    let max = read_number("/proc/sys/user/max_user_namespaces");
    let unprivileged = read_number("/proc/sys/kernel/unprivileged_userns_clone");
    let apparmor = read_number("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
    let namespaces = match (max, unprivileged, apparmor) {
        (Some(0), _, _) => (false, "user.max_user_namespaces is 0".to_owned()),
        (_, Some(0), _) if !root => (
            false,
            "kernel.unprivileged_userns_clone is 0 (user namespaces only for root)".to_owned(),
        ),
        (_, _, Some(1)) if !root => (
            false,
            "AppArmor restricts unprivileged user namespaces \
             (kernel.apparmor_restrict_unprivileged_userns = 1)"
                .to_owned(),
        ),
        _ => (
            true,
            format!(
                "user, mount and PID namespaces (max_user_namespaces {})",
                max.map_or("unknown".to_owned(), |m| m.to_string())
            ),
        ),
    };
    let landlock = match landlock_abi() {
        Some(abi) => (
            true,
            format!(
                "ABI {} (files{}{})",
                abi as i32,
                if abi as i32 >= 4 { ", TCP" } else { "" },
                if abi as i32 >= 6 {
                    ", signal and abstract-socket scoping"
                } else {
                    ""
                }
            ),
        ),
        None => (
            false,
            "not enforced by this kernel (built without it, or not in the lsm= boot list)"
                .to_owned(),
        ),
    };
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let seccomp = if status.contains("Seccomp_filters:") || status.contains("Seccomp:") {
        (true, format!("filters on {}", std::env::consts::ARCH))
    } else {
        (false, "this kernel has no seccomp".to_owned())
    };
    [
        (Layer::Namespaces, namespaces),
        (Layer::Landlock, landlock),
        (Layer::Seccomp, seccomp),
    ]
    .into_iter()
    .map(|(layer, (available, detail))| LayerReport {
        layer,
        available,
        detail,
    })
    .collect()
}
