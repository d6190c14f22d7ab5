//! Small low-level helpers shared by hot paths.

/// Hints the CPU to fetch `slice[index]` into cache (no effect if out of bounds or on
/// targets without a prefetch instruction). Used where the simulator knows a random
/// table access is coming several iterations ahead.
#[inline(always)]
pub fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if index < slice.len() {
        // SAFETY: prefetch never faults, even for invalid addresses; the pointer is in
        // bounds anyway. SSE is part of the x86_64 baseline.
        #[allow(unused_unsafe)]
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch(slice.as_ptr().add(index) as *const i8, _MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}

/// A zero-filled vector of `len` elements whose memory the kernel is asked to back with
/// transparent huge pages. The simulator's big tables (L2P, OOB, validity bits) are
/// accessed at random; with 4 KiB pages nearly every access also misses the TLB, and the
/// page walks, not the cache misses, become the limit. Huge pages remove most of them.
pub fn zeroed_vec<T: Copy + Default>(len: usize) -> Vec<T> {
    let v = vec![T::default(); len];
    advise_huge(&v);
    v
}

/// A vector of `len` copies of `value`, its memory advised for transparent huge pages
/// before anything touches it (as [`zeroed_vec`] for tables whose empty value is not 0;
/// advising after filling would leave the pages already faulted in at 4 KiB).
pub fn filled_vec<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    advise_huge_range(v.as_ptr() as usize, len * std::mem::size_of::<T>());
    v.resize(len, value);
    v
}

/// Asks for transparent huge pages over `v`'s memory (Linux; a no-op elsewhere or when
/// the region is too small to hold one huge page).
pub fn advise_huge<T>(v: &[T]) {
    advise_huge_range(v.as_ptr() as usize, std::mem::size_of_val(v));
}

/// [`advise_huge`] over `bytes` bytes from address `start`, which must lie in one
/// allocation.
fn advise_huge_range(start: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let end = start + bytes;
        let aligned = start.next_multiple_of(HUGE);
        if end > aligned + HUGE {
            let len = (end - aligned) / HUGE * HUGE;
            // SAFETY: the range lies inside one allocation (the callers pass a vector's
            // buffer); MADV_HUGEPAGE only changes how the kernel backs it, never its
            // contents.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// Division of 32-bit values by a fixed divisor with one 64×64→128-bit multiply
/// (Lemire, Kaser, Kurz, "Faster remainder by direct computation", 2019): exact for every
/// `u32` numerator. Address arithmetic (page → block → plane → die) runs for every flash
/// operation, and hardware division is several times slower than the multiply.
#[derive(Clone, Copy, Debug)]
pub struct FastDiv {
    m: u64,
    d: u32,
}

impl FastDiv {
    /// A divider by `d` (must be non-zero).
    pub fn new(d: u32) -> FastDiv {
        assert!(d > 0, "division by zero");
        FastDiv {
            m: (u64::MAX / d as u64).wrapping_add(1),
            d,
        }
    }

    /// `n / d`.
    #[inline(always)]
    pub fn div(&self, n: u32) -> u32 {
        if self.d == 1 {
            return n;
        }
        ((self.m as u128 * n as u128) >> 64) as u32
    }
}

/// Division of byte counts by a fixed size (a page, an alignment): a shift when the size
/// is a power of two, as page and sector sizes are in practice, else a hardware division.
/// Every request turns its byte range into pages, and a 64-bit division costs tens of
/// cycles on the simulator's per-request path.
#[derive(Clone, Copy, Debug)]
pub struct SizeDiv {
    d: u64,
    /// log2(d), or `u32::MAX` when `d` is not a power of two.
    shift: u32,
}

impl SizeDiv {
    /// A divider by `d` (must be non-zero).
    pub fn new(d: u64) -> SizeDiv {
        assert!(d > 0, "division by zero");
        SizeDiv {
            d,
            shift: if d.is_power_of_two() {
                d.trailing_zeros()
            } else {
                u32::MAX
            },
        }
    }

    /// The divisor.
    #[inline(always)]
    pub fn get(&self) -> u64 {
        self.d
    }

    /// `n / d`.
    #[inline(always)]
    pub fn div(&self, n: u64) -> u64 {
        if self.shift != u32::MAX {
            n >> self.shift
        } else {
            n / self.d
        }
    }

    /// `n % d`.
    #[inline(always)]
    pub fn rem(&self, n: u64) -> u64 {
        if self.shift != u32::MAX {
            n & (self.d - 1)
        } else {
            n % self.d
        }
    }

    /// `⌈n / d⌉`.
    #[inline(always)]
    pub fn div_ceil(&self, n: u64) -> u64 {
        self.div(n) + (self.rem(n) != 0) as u64
    }

    /// Whether `d` divides `n`.
    #[inline(always)]
    pub fn divides(&self, n: u64) -> bool {
        self.rem(n) == 0
    }
}

/// Takes an exclusive advisory lock (`flock`) on `file` without waiting; it lasts until
/// every descriptor of that open file closes (so a crash releases it). A lock another
/// process holds gives `ErrorKind::WouldBlock`.
#[cfg(unix)]
pub fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor the File owns; no memory is shared with the call.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Without `flock`, no lock.
#[cfg(not(unix))]
pub fn lock_exclusive(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// The process holding a `flock` on `file`, read from Linux's `/proc/locks` (its lines
/// name the holder's pid and the file's device and inode); `None` where that is not
/// available or no lock matches.
#[cfg(unix)]
pub fn flock_holder(file: &std::fs::File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata().ok()?;
    let inode = m.ino();
    let (major, minor) = (libc::major(m.dev()), libc::minor(m.dev()));
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (device in hex).
    locks.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (kind, pid, id) = (f.get(1)?, f.get(4)?, f.get(5)?);
        if *kind != "FLOCK" {
            return None;
        }
        let mut parts = id.split(':');
        let maj = u32::from_str_radix(parts.next()?, 16).ok()?;
        let min = u32::from_str_radix(parts.next()?, 16).ok()?;
        let ino: u64 = parts.next()?.parse().ok()?;
        (maj == major && min == minor && ino == inode)
            .then(|| pid.parse().ok())
            .flatten()
    })
}

/// Without `/proc/locks`, unknown.
#[cfg(not(unix))]
pub fn flock_holder(_file: &std::fs::File) -> Option<u32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn fast_division_is_exact(n in any::<u32>(), d in 1u32..) {
            prop_assert_eq!(FastDiv::new(d).div(n), n / d);
        }

        #[test]
        fn size_division_is_exact(n in any::<u64>(), d in 1u64.., pow in 0u32..64, use_pow: bool) {
            let d = if use_pow { 1u64 << pow } else { d };
            let s = SizeDiv::new(d);
            prop_assert_eq!(s.div(n), n / d);
            prop_assert_eq!(s.rem(n), n % d);
            prop_assert_eq!(s.div_ceil(n), n.div_ceil(d));
            prop_assert_eq!(s.divides(n), n % d == 0);
        }
    }

    #[test]
    fn fast_division_edges() {
        for d in [1, 2, 3, 7, 548, 1 << 31, u32::MAX] {
            for n in [0, 1, d - 1, d, u32::MAX, u32::MAX - 1] {
                assert_eq!(FastDiv::new(d).div(n), n / d, "{n}/{d}");
            }
        }
    }
}
