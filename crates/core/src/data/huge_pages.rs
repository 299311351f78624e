//! Transparent huge pages for a dataset's feature matrix (native Linux only).
//!
//! DP-SGD reads its Poisson batch, a few hundred samples at random positions hundreds of KB
//! apart, from a matrix of up to hundreds of MB: on 4 KB pages nearly every sample is a TLB miss
//! and a page walk. On 2 MB pages the whole matrix fits in the TLB. Linux gives a process huge
//! pages only where it asks for them when the system's THP mode is `madvise` (common, and the
//! default of several distributions), so the generator asks, with `madvise(MADV_HUGEPAGE)`, before
//! it writes the first sample (a page already faulted in as 4 KB pages would only be merged later,
//! if at all, by the kernel's background thread).
//!
//! The advice is a hint about where memory comes from: it changes no value, and if the kernel
//! declines (THP `never`, no contiguous memory free) nothing but the speed differs. Elsewhere
//! (wasm, other systems) [`advise_huge_pages`] does nothing.
//!
//! Setting the environment variable `DP_PLAYGROUND_NO_HUGE_PAGES` (to anything) withholds the
//! advice, to measure what it is worth: docs/benchmarks.md, "Huge pages".

use core::mem::MaybeUninit;

/// Asks the kernel to back the whole pages inside `buf` with transparent huge pages; call it on a
/// buffer's spare capacity before the buffer is first written. A hint: it never fails, and the
/// bytes of `buf` are untouched.
#[cfg(all(target_os = "linux", not(target_arch = "wasm32")))]
pub(crate) fn advise_huge_pages<T>(buf: &mut [MaybeUninit<T>]) {
    // A huge page is 2 MB; below 4 MB at most one fits once the ends are trimmed to it, and
    // small buffers (most of the page's data sets) would gain nothing.
    const WORTH_IT: usize = 4 << 20;
    let bytes = core::mem::size_of_val(buf);
    if bytes < WORTH_IT || std::env::var_os("DP_PLAYGROUND_NO_HUGE_PAGES").is_some() {
        return;
    }
    // SAFETY: sysconf has no preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => return,
    };
    // madvise wants a page-aligned start: advise only the whole pages inside the buffer, so no
    // page shared with another allocation is touched.
    let start = buf.as_mut_ptr() as usize;
    let first = start.next_multiple_of(page);
    let end = (start + bytes) / page * page;
    if end <= first {
        return;
    }
    // SAFETY: [first, end) is page-aligned and lies inside `buf`, memory this process owns
    // exclusively (we hold `&mut`). MADV_HUGEPAGE only marks the range as eligible for huge
    // pages: it neither reads, writes nor frees it, and the kernel keeps the contents of any page
    // it later merges. Its result is ignored on purpose: EINVAL (a kernel without THP) or ENOMEM
    // leave the memory as it was, on 4 KB pages.
    let _ = unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
}

/// Elsewhere there is no such advice to give.
#[cfg(not(all(target_os = "linux", not(target_arch = "wasm32"))))]
pub(crate) fn advise_huge_pages<T>(_buf: &mut [MaybeUninit<T>]) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The advice changes no byte and no address: values written after it read back, and the
    /// buffer grown within its capacity stays where the advice was given.
    #[test]
    fn advice_keeps_the_buffer_and_its_values() {
        let n = (8 << 20) / 8 + 3;
        let mut v: Vec<f64> = Vec::with_capacity(n);
        let ptr = v.as_ptr();
        advise_huge_pages(v.spare_capacity_mut());
        v.extend((0..n).map(|i| i as f64 * 0.5));
        assert_eq!(v.as_ptr(), ptr);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as f64 * 0.5));
        // Small and empty buffers are left alone, without a fault.
        advise_huge_pages(Vec::<f64>::with_capacity(10).spare_capacity_mut());
        advise_huge_pages::<f64>(&mut []);
    }

    /// On Linux with THP in the kernel, the advice reaches the kernel: the mapping that holds the
    /// middle of a large buffer carries the `hg` (MADV_HUGEPAGE) flag in /proc/self/smaps. A
    /// wrong range, a wrong cfg or a dropped call fails here. (Whether huge pages are then
    /// actually handed out depends on free memory, so that is not asserted.)
    #[cfg(all(target_os = "linux", not(target_arch = "wasm32")))]
    #[test]
    fn advice_marks_the_mapping_for_huge_pages() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists()
            || std::env::var_os("DP_PLAYGROUND_NO_HUGE_PAGES").is_some()
        {
            return; // a kernel without THP (madvise refuses), or the advice withheld on purpose
        }
        let mut v: Vec<f64> = Vec::with_capacity((16 << 20) / 8);
        advise_huge_pages(v.spare_capacity_mut());
        let middle = v.as_ptr() as usize + (8 << 20);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut flags = None;
        for line in smaps.lines() {
            if let Some(rest) = line.strip_prefix("VmFlags:") {
                if inside {
                    flags = Some(
                        rest.split_whitespace()
                            .map(str::to_owned)
                            .collect::<Vec<_>>(),
                    );
                    break;
                }
            } else if let Some((lo, hi)) = line
                .split_whitespace()
                .next()
                .and_then(|r| r.split_once('-'))
            {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = lo <= middle && middle < hi;
                }
            }
        }
        let flags = flags.expect("the buffer's mapping in /proc/self/smaps");
        assert!(flags.iter().any(|f| f == "hg"), "VmFlags {flags:?}");
        v.push(1.0);
    }
}
