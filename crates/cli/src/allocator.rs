//! The process's allocator: mimalloc for Rust's allocations and tree-sitter's, and how
//! long a long-running process keeps the memory it frees before the OS gets it back.

use libmimalloc_sys::{mi_collect, mi_option_set, mi_option_t};

/// mimalloc instead of the system allocator: building an index allocates and frees
/// millions of small facts, and glibc's malloc took a fifth of a cold index's time
/// (benches/README.md, "The allocator"). Built without transparent huge pages
/// (`no_thp`): the kernel clears a 2 MiB page on first touch, which made loading the
/// facts cache 1.7 to 2.9 times slower.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// tree-sitter's C library allocates through its own hooks, glibc's malloc unless told
/// otherwise: its parse trees and query cursors were a twentieth of a cold index's time
/// in `malloc`, `free` and `malloc_consolidate` (benches/README.md, "The allocator").
/// mimalloc serves them too; a failed allocation aborts, as tree-sitter's own default
/// does.
mod tree_sitter_hooks {
    use std::ffi::c_void;

    use libmimalloc_sys::{mi_free, mi_malloc, mi_realloc, mi_zalloc};

    fn or_abort(pointer: *mut c_void, size: usize) -> *mut c_void {
        if pointer.is_null() && size != 0 {
            std::process::abort();
        }
        pointer
    }

    #[allow(unsafe_code)]
    unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        // SAFETY: mimalloc's malloc takes any size.
        or_abort(unsafe { mi_malloc(size) }, size)
    }

    #[allow(unsafe_code)]
    unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        let Some(bytes) = count.checked_mul(size) else {
            std::process::abort();
        };
        // SAFETY: mimalloc's zeroed malloc takes any size.
        or_abort(unsafe { mi_zalloc(bytes) }, bytes)
    }

    #[allow(unsafe_code)]
    unsafe extern "C" fn realloc(pointer: *mut c_void, size: usize) -> *mut c_void {
        // SAFETY: tree-sitter passes null or a pointer these hooks returned.
        or_abort(unsafe { mi_realloc(pointer, size) }, size)
    }

    #[allow(unsafe_code)]
    unsafe extern "C" fn free(pointer: *mut c_void) {
        // SAFETY: tree-sitter passes null or a pointer these hooks returned.
        unsafe { mi_free(pointer) }
    }

    /// Installs the hooks; called first thing in `main`, before any parser exists.
    #[allow(unsafe_code)]
    pub(super) fn install() {
        // SAFETY: one allocator family (mimalloc), aligned as malloc's, never null for a
        // non-zero size (the hooks abort instead), and installed on the main thread
        // before any tree-sitter object is made, never again.
        unsafe {
            tree_sitter::set_allocator(Some(tree_sitter::Allocator {
                malloc,
                calloc,
                realloc,
                free,
            }));
        }
    }
}

/// Points tree-sitter's allocations at mimalloc; first thing in `main`.
pub(crate) fn install_tree_sitter_hooks() {
    tree_sitter_hooks::install();
}

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e` of the vendored
/// mimalloc 3 header, which the Rust bindings do not name): how long, in milliseconds,
/// freed memory stays with the process before it is returned to the OS. mimalloc's
/// default is a second (times ten for its arenas); a unit test checks that this place
/// holds that default.
const PURGE_DELAY: mi_option_t = 15;

/// An hour: longer than any spell between a watcher's updates that is not a quiet one
/// (then [`release_freed_memory`] gives the memory back).
const HELD_MS: std::ffi::c_long = 3_600_000;

/// Keeps freed memory with the process until [`release_freed_memory`]. An update under
/// `mcursor watch` frees a few hundred MiB that the next one allocates again; returned
/// to the OS in between, each of those pages faults and is cleared again on its next
/// use. On rustreg a quarter of a watcher's samples were in the kernel; with the memory
/// kept its interface edits went 0.57 -> 0.41 s (medians; benches/README.md, "Memory
/// kept between a watcher's updates").
pub(crate) fn hold_freed_memory() {
    // SAFETY: setting an option has no precondition; mimalloc reads it on each purge.
    #[allow(unsafe_code)]
    unsafe {
        mi_option_set(PURGE_DELAY, HELD_MS)
    };
}

/// Returns the memory freed and held so far to the OS: for a watcher's quiet spells
/// ([`mcursor_index::WatchOptions::release_memory`]). The update threads have ended by
/// then, and what they freed is with mimalloc's arenas, which this purges.
pub(crate) fn release_freed_memory() {
    // SAFETY: collecting has no precondition; it only frees memory no one holds.
    #[allow(unsafe_code)]
    unsafe {
        mi_collect(true)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_where_the_header_puts_it() {
        // SAFETY: reading an option has no precondition.
        #[allow(unsafe_code)]
        let delay = unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        assert_eq!(
            delay, 1000,
            "mimalloc's option {PURGE_DELAY} is not its purge delay of 1 s: \
             PURGE_DELAY must follow mimalloc's `mi_option_e`"
        );
    }
}
