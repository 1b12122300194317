//! IPC memory handles: how a `ze_ipc_mem_handle_t` names memory of another process, and the
//! memory a context opened from such handles.
//!
//! Every allocation (and every physical memory object) is a `memfd` (see
//! [`crate::model::alloc`], [`crate::model::vm`]), open in the exporting process for as long as the
//! memory lives. A handle is 64 bytes, native-endian ([`Wire`]):
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `0x5a4b4950` ("ZKIP") |
//! | 4..8 | version (1) |
//! | 8..12 | pid of the process whose fd table holds `fd` |
//! | 12..16 | `fd`: the memfd's number in that process |
//! | 16..24 | inode of the memfd (checked on open: a reused fd number is refused) |
//! | 24..32 | device of the memfd |
//! | 32..40 | offset into the memfd where the mapping starts (page-aligned) |
//! | 40..48 | bytes to map (page multiple) |
//! | 48..56 | offset of the returned pointer into the mapping |
//! | 56..64 | size the importer sees (`zeMemGetAddressRange`) |
//!
//! Opening in another process takes the file with `pidfd_open` + `pidfd_getfd` (Linux 5.6; needs
//! ptrace-attach permission over the exporter: the same user, and under Yama `ptrace_scope` 1 the
//! importer must be the exporter's ancestor); when that fails it opens `/proc/<pid>/fd/<fd>`
//! (ptrace-read permission: the same user, whatever Yama says). Another user, or a `ptrace_scope`
//! of 3 with no `/proc` access, cannot open handles: `INVALID_ARGUMENT` with the reasons. In the exporting process itself the fd is duplicated. The exporter must keep the memory
//! alive until the importer has opened it (afterwards the importer's mapping keeps the pages);
//! `zeMemPutIpcHandle` releases nothing (the handle owns nothing). An fd received over a Unix
//! socket becomes a handle with `zeMemGetIpcHandleFromFileDescriptorExp`, naming the receiving
//! process's fd; `zeMemGetFileDescriptorFromIpcHandleExp` gives back the handle's fd number
//! (valid in the process that made the handle).
//!
//! A range handle (`zeMemGetIpcHandleWithProperties` with a range) over **several** physical
//! memory objects is a [`RangeWire`] (magic `"ZKIR"`, version 1, pid, fd, inode and device of a
//! *manifest* `memfd` at 8..32, the piece count at 32, the pointer's offset into the whole
//! mapping at 40, the size seen at 48). The manifest holds one 40-byte [`Piece`] per object
//! (pid, fd, inode, device of its memfd, page-aligned offset, length in pages' bytes; native
//! endian), in address order. The exporting context keeps the manifest until
//! `zeMemPutIpcHandle` of the handle or the context's destruction; the importer takes the
//! manifest and every piece's memfd as above and maps the pieces back to back, `MAP_FIXED`, in
//! one reservation.

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::{Mutex, MutexGuard};

use zekit_sys::*;

use crate::model::objects::{ZeError, ZeResult};

/// "ZKIP".
pub const MAGIC: u32 = 0x5a4b_4950;
/// Layout version of [`Wire`].
pub const VERSION: u32 = 1;

/// The decoded content of a `ze_ipc_mem_handle_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Wire {
    /// Process whose fd table holds `fd`.
    pub pid: i32,
    /// The memfd's number in that process.
    pub fd: i32,
    /// Inode of the memfd.
    pub ino: u64,
    /// Device of the memfd.
    pub dev: u64,
    /// Page-aligned offset into the file where the mapping starts.
    pub offset: u64,
    /// Bytes to map (a page multiple).
    pub map_len: u64,
    /// Offset of the returned pointer into the mapping.
    pub delta: u64,
    /// Size the importer sees.
    pub size: u64,
}

/// The 64 bytes of an IPC handle (`ze_ipc_mem_handle_t`, `ze_ipc_event_pool_handle_t`): a magic
/// naming the kind, [`VERSION`], then the kind's fields in native byte order.
struct HandleBytes([u8; 64]);

impl HandleBytes {
    fn new(magic: u32) -> HandleBytes {
        let mut b = HandleBytes([0; 64]);
        b.put(0, &magic.to_ne_bytes());
        b.put(4, &VERSION.to_ne_bytes());
        b
    }

    fn put(&mut self, at: usize, bytes: &[u8]) {
        self.0[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn into_chars(self) -> [std::ffi::c_char; 64] {
        self.0.map(|b| b as std::ffi::c_char)
    }

    /// The bytes of `data`, when they carry `magic` and this driver's version.
    fn read(data: &[std::ffi::c_char; 64], magic: u32, what: &str) -> ZeResult<HandleBytes> {
        let b = HandleBytes(data.map(|c| c as u8));
        if b.u32_at(0) != magic || b.u32_at(4) != VERSION {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("the {what} was not made by the zekit CPU driver (bad magic or version)"),
            ));
        }
        Ok(b)
    }

    fn u32_at(&self, at: usize) -> u32 {
        u32::from_ne_bytes([self.0[at], self.0[at + 1], self.0[at + 2], self.0[at + 3]])
    }

    fn u64_at(&self, at: usize) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&self.0[at..at + 8]);
        u64::from_ne_bytes(a)
    }
}

impl Wire {
    /// The 64 bytes of the handle.
    pub fn encode(&self) -> ze_ipc_mem_handle_t {
        let mut b = HandleBytes::new(MAGIC);
        b.put(8, &self.pid.to_ne_bytes());
        b.put(12, &self.fd.to_ne_bytes());
        for (i, v) in [self.ino, self.dev, self.offset, self.map_len, self.delta, self.size]
            .into_iter()
            .enumerate()
        {
            b.put(16 + 8 * i, &v.to_ne_bytes());
        }
        ze_ipc_mem_handle_t { data: b.into_chars() }
    }

    /// Decodes a handle; `INVALID_ARGUMENT` when it is not one of this driver's.
    pub fn decode(h: &ze_ipc_mem_handle_t) -> ZeResult<Wire> {
        let b = HandleBytes::read(&h.data, MAGIC, "IPC handle")?;
        let (u32_at, u64_at) = (|i| b.u32_at(i), |i| b.u64_at(i));
        let w = Wire {
            pid: u32_at(8) as i32,
            fd: u32_at(12) as i32,
            ino: u64_at(16),
            dev: u64_at(24),
            offset: u64_at(32),
            map_len: u64_at(40),
            delta: u64_at(48),
            size: u64_at(56),
        };
        if w.pid <= 0 || w.fd < 0 || w.map_len == 0 || w.delta >= w.map_len
            || w.size > w.map_len - w.delta
        {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the IPC handle is corrupt (pid, fd or ranges out of bounds)",
            ));
        }
        Ok(w)
    }
}

fn stat_fd(fd: RawFd) -> std::io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer; a bad fd gives EBADF.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(st)
}

/// A handle for `map_len` bytes of the memfd `fd` (of this process) from `offset`; the importer
/// gets a pointer `delta` bytes in, seeing `size` bytes.
pub fn export(fd: RawFd, offset: u64, map_len: u64, delta: u64, size: u64) -> ZeResult<Wire> {
    let st = stat_fd(fd).map_err(|e| {
        ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, format!("fd {fd}: {e}"))
    })?;
    if offset.checked_add(map_len).is_none_or(|end| end > st.st_size as u64) {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("fd {fd} holds {} bytes, fewer than the range", st.st_size),
        ));
    }
    Ok(Wire {
        // SAFETY: getpid has no preconditions.
        pid: unsafe { libc::getpid() },
        fd,
        ino: st.st_ino,
        dev: st.st_dev,
        offset,
        map_len,
        delta,
        size,
    })
}

/// `zeMemGetIpcHandleFromFileDescriptorExp`: a handle for the whole file `fd` of this process.
pub fn from_fd(fd: u64) -> ZeResult<Wire> {
    let raw = RawFd::try_from(fd).map_err(|_| {
        ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, format!("{fd} is not a file descriptor"))
    })?;
    let st = stat_fd(raw).map_err(|e| {
        ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, format!("fd {fd}: {e}"))
    })?;
    let size = st.st_size as u64;
    if size == 0 {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("fd {fd} is empty: nothing to map"),
        ));
    }
    export(raw, 0, size, 0, size)
}

/// Where a file lives: a process, the fd number there, and the file's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remote {
    /// Process whose fd table holds `fd`.
    pub pid: i32,
    /// The fd number there.
    pub fd: i32,
    /// Inode of the file.
    pub ino: u64,
    /// Device of the file.
    pub dev: u64,
}

impl Remote {
    /// The file `fd` of this process.
    pub fn local(fd: RawFd) -> ZeResult<Remote> {
        let st = stat_fd(fd).map_err(|e| {
            ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, format!("fd {fd}: {e}"))
        })?;
        Ok(Remote {
            // SAFETY: getpid has no preconditions.
            pid: unsafe { libc::getpid() },
            fd,
            ino: st.st_ino,
            dev: st.st_dev,
        })
    }
}

/// Takes the file `w` names into this process.
pub fn take_fd(w: &Remote) -> ZeResult<OwnedFd> {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    let fd = if w.pid == me {
        // SAFETY: duplicates a descriptor number; a closed one gives EBADF.
        let fd = unsafe { libc::fcntl(w.fd, libc::F_DUPFD_CLOEXEC, 0) };
        if fd < 0 {
            return Err(gone(w, std::io::Error::last_os_error()));
        }
        fd
    } else {
        match pidfd_getfd(w.pid, w.fd) {
            Ok(fd) => fd,
            Err(first) => {
                let path = format!("/proc/{}/fd/{}\0", w.pid, w.fd);
                // SAFETY: `path` is NUL-terminated.
                let fd = unsafe {
                    libc::open(path.as_ptr().cast(), libc::O_RDWR | libc::O_CLOEXEC)
                };
                if fd < 0 {
                    let second = std::io::Error::last_os_error();
                    return Err(gone(
                        w,
                        std::io::Error::other(format!(
                            "pidfd_getfd: {first}; /proc/{}/fd/{}: {second}",
                            w.pid, w.fd
                        )),
                    ));
                }
                fd
            }
        }
    };
    // SAFETY: a descriptor just made for us, owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let st = stat_fd(fd.as_raw_fd()).map_err(|e| gone(w, e))?;
    if st.st_ino != w.ino || st.st_dev != w.dev {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!(
                "fd {} of process {} is no longer the exported memory (freed; the number was reused)",
                w.fd, w.pid
            ),
        ));
    }
    Ok(fd)
}

fn gone(w: &Remote, e: std::io::Error) -> ZeError {
    ZeError::new(
        ZE_RESULT_ERROR_INVALID_ARGUMENT,
        format!(
            "cannot open fd {} of process {} (exited, memory freed, or no permission): {e}",
            w.fd, w.pid
        ),
    )
}

fn pidfd_getfd(pid: i32, fd: i32) -> std::io::Result<RawFd> {
    // SAFETY: the pidfd_open system call with no flags.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if pidfd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `pidfd` is ours (just opened).
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd as RawFd) };
    // SAFETY: the pidfd_getfd system call with no flags (the new fd is close-on-exec).
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(fd as RawFd)
}

/// One opened handle: the mapping and what the importer was given.
#[derive(Debug)]
struct Opened {
    map_base: usize,
    map_len: usize,
    size: usize,
}

/// The memory a context opened from IPC handles, keyed by the pointer it returned. Thread-safe;
/// dropping it unmaps everything still open.
#[derive(Debug, Default)]
pub struct Imports {
    opened: Mutex<BTreeMap<usize, Opened>>,
}

/// "ZKIR": a range handle over several physical memory objects.
pub const RANGE_MAGIC: u32 = 0x5a4b_4952;

/// Bytes of one [`Piece`] in a manifest.
pub const PIECE_SIZE: usize = 40;

/// Most pieces a manifest may hold (a sanity bound for the importer).
pub const MAX_PIECES: u32 = 1 << 16;

/// One physical object's part of a multi-object range: `len` bytes (a page multiple) of the
/// file `file` from `offset` (page-aligned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The object's memfd.
    pub file: Remote,
    /// Page-aligned offset into it.
    pub offset: u64,
    /// Bytes to map (a page multiple).
    pub len: u64,
}

/// The content of a range handle over several objects (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangeWire {
    /// The manifest's memfd.
    pub manifest: Remote,
    /// Pieces in the manifest.
    pub count: u32,
    /// Offset of the returned pointer into the whole mapping.
    pub delta: u64,
    /// Size the importer sees.
    pub size: u64,
}

impl RangeWire {
    /// The 64 bytes of the handle.
    pub fn encode(&self) -> ze_ipc_mem_handle_t {
        let mut b = HandleBytes::new(RANGE_MAGIC);
        b.put(8, &self.manifest.pid.to_ne_bytes());
        b.put(12, &self.manifest.fd.to_ne_bytes());
        b.put(16, &self.manifest.ino.to_ne_bytes());
        b.put(24, &self.manifest.dev.to_ne_bytes());
        b.put(32, &self.count.to_ne_bytes());
        b.put(40, &self.delta.to_ne_bytes());
        b.put(48, &self.size.to_ne_bytes());
        ze_ipc_mem_handle_t { data: b.into_chars() }
    }

    fn decode(h: &ze_ipc_mem_handle_t) -> ZeResult<RangeWire> {
        let b = HandleBytes::read(&h.data, RANGE_MAGIC, "IPC handle")?;
        let (u32_at, u64_at) = (|i| b.u32_at(i), |i| b.u64_at(i));
        let w = RangeWire {
            manifest: Remote {
                pid: u32_at(8) as i32,
                fd: u32_at(12) as i32,
                ino: u64_at(16),
                dev: u64_at(24),
            },
            count: u32_at(32),
            delta: u64_at(40),
            size: u64_at(48),
        };
        if w.manifest.pid <= 0 || w.manifest.fd < 0 || w.count < 2 || w.count > MAX_PIECES || w.size == 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the IPC range handle is corrupt (pid, fd, piece count or size)",
            ));
        }
        Ok(w)
    }
}

/// A memory IPC handle of either kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemHandle {
    /// One file ([`Wire`]).
    Single(Wire),
    /// Several physical objects through a manifest ([`RangeWire`]).
    Range(RangeWire),
}

/// Decodes a memory handle of either kind; `INVALID_ARGUMENT` when it is neither.
pub fn decode_mem(h: &ze_ipc_mem_handle_t) -> ZeResult<MemHandle> {
    let magic = u32::from_ne_bytes([h.data[0] as u8, h.data[1] as u8, h.data[2] as u8, h.data[3] as u8]);
    if magic == RANGE_MAGIC {
        RangeWire::decode(h).map(MemHandle::Range)
    } else {
        Wire::decode(h).map(MemHandle::Single)
    }
}

/// A manifest `memfd` listing `pieces`, for a [`RangeWire`].
pub fn write_manifest(pieces: &[Piece]) -> ZeResult<OwnedFd> {
    let mut bytes = Vec::with_capacity(pieces.len() * PIECE_SIZE);
    for p in pieces {
        bytes.extend_from_slice(&p.file.pid.to_ne_bytes());
        bytes.extend_from_slice(&p.file.fd.to_ne_bytes());
        for v in [p.file.ino, p.file.dev, p.offset, p.len] {
            bytes.extend_from_slice(&v.to_ne_bytes());
        }
    }
    let fail = |e: std::io::Error| {
        ZeError::new(
            ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
            format!("making the range handle's manifest: {e}"),
        )
    };
    let fd = crate::model::vm::memfd("zekit-ipc-range", 0).map_err(fail)?;
    let mut file = std::fs::File::from(fd);
    std::io::Write::write_all(&mut file, &bytes).map_err(fail)?;
    Ok(OwnedFd::from(file))
}

/// The `count` pieces of a manifest.
fn read_manifest(fd: &OwnedFd, count: u32) -> ZeResult<Vec<Piece>> {
    let n = count as usize * PIECE_SIZE;
    let mut bytes = vec![0u8; n];
    // SAFETY: reads at most `n` bytes into our buffer of `n` bytes.
    let got = unsafe { libc::pread(fd.as_raw_fd(), bytes.as_mut_ptr().cast(), n, 0) };
    if got != n as isize {
        return Err(ZeError::new(
            ZE_RESULT_ERROR_INVALID_ARGUMENT,
            format!("the IPC range handle's manifest is short ({got} of {n} bytes)"),
        ));
    }
    let u32_at = |i: usize| u32::from_ne_bytes(bytes[i..i + 4].try_into().unwrap_or_default());
    let u64_at = |i: usize| u64::from_ne_bytes(bytes[i..i + 8].try_into().unwrap_or_default());
    Ok((0..count as usize)
        .map(|k| {
            let b = k * PIECE_SIZE;
            Piece {
                file: Remote {
                    pid: u32_at(b) as i32,
                    fd: u32_at(b + 4) as i32,
                    ino: u64_at(b + 8),
                    dev: u64_at(b + 16),
                },
                offset: u64_at(b + 24),
                len: u64_at(b + 32),
            }
        })
        .collect())
}

impl Imports {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<usize, Opened>> {
        self.opened.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `zeMemOpenIpcHandle`: maps what `w` names; returns the importer's pointer.
    pub fn open(&self, w: &Wire) -> ZeResult<usize> {
        let fd = take_fd(&Remote {
            pid: w.pid,
            fd: w.fd,
            ino: w.ino,
            dev: w.dev,
        })?;
        let (Ok(len), Ok(off)) = (usize::try_from(w.map_len), libc::off_t::try_from(w.offset))
        else {
            return Err(ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, "range too large"));
        };
        // A mapping of whole pages past the end of the file would fault (SIGBUS) on access:
        // refuse it.
        let page = crate::model::vm::page_size() as u64;
        let file_size = stat_fd(fd.as_raw_fd()).map(|st| st.st_size as u64).unwrap_or(0);
        if w.offset.checked_add(w.map_len).is_none_or(|end| end > file_size.next_multiple_of(page)) {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!(
                    "the handle's range {}+{} exceeds the {file_size} bytes of the exported memory",
                    w.offset, w.map_len
                ),
            ));
        }
        // SAFETY: a new shared mapping of the file chosen by the kernel (no MAP_FIXED).
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                off,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                format!("mapping the IPC memory: {}", std::io::Error::last_os_error()),
            ));
        }
        let ptr = p as usize + w.delta as usize;
        self.lock().insert(
            ptr,
            Opened {
                map_base: p as usize,
                map_len: len,
                size: w.size as usize,
            },
        );
        Ok(ptr)
    }

    /// `zeMemOpenIpcHandle` of a range handle over several objects: maps every piece of the
    /// manifest back to back; returns the importer's pointer.
    pub fn open_range(&self, w: &RangeWire) -> ZeResult<usize> {
        let manifest = take_fd(&w.manifest)?;
        let pieces = read_manifest(&manifest, w.count)?;
        let page = crate::model::vm::page_size() as u64;
        let bad = |why: String| ZeError::new(ZE_RESULT_ERROR_INVALID_ARGUMENT, why);
        let mut total: u64 = 0;
        let mut files = Vec::with_capacity(pieces.len());
        for p in &pieces {
            if p.len == 0 || p.len % page != 0 || p.offset % page != 0 {
                return Err(bad("the IPC range handle's manifest is corrupt (piece not in pages)".into()));
            }
            let fd = take_fd(&p.file)?;
            let file_size = stat_fd(fd.as_raw_fd()).map(|st| st.st_size as u64).unwrap_or(0);
            if p.offset.checked_add(p.len).is_none_or(|end| end > file_size.next_multiple_of(page)) {
                return Err(bad(format!(
                    "a piece {}+{} of the range exceeds the {file_size} bytes of its physical memory",
                    p.offset, p.len
                )));
            }
            total = total.checked_add(p.len).ok_or_else(|| bad("range too large".into()))?;
            files.push(fd);
        }
        if w.delta >= total || w.size > total - w.delta {
            return Err(bad("the IPC range handle's size exceeds its pieces".into()));
        }
        let len = usize::try_from(total).map_err(|_| bad("range too large".into()))?;
        // SAFETY: a fresh reservation chosen by the kernel (no MAP_FIXED).
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                format!("reserving the IPC range: {}", std::io::Error::last_os_error()),
            ));
        }
        let mut at = 0usize;
        for (p, fd) in pieces.iter().zip(&files) {
            // `p.len` and `p.offset` were checked above (page multiples inside the file).
            let plen = p.len as usize;
            // SAFETY: `[base + at, base + at + plen)` lies inside our reservation.
            let m = unsafe {
                libc::mmap(
                    (base as usize + at) as *mut libc::c_void,
                    plen,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED | libc::MAP_FIXED,
                    fd.as_raw_fd(),
                    p.offset as libc::off_t,
                )
            };
            if m == libc::MAP_FAILED {
                let e = std::io::Error::last_os_error();
                // SAFETY: our reservation (and what was mapped into it), unmapped once.
                unsafe { libc::munmap(base, len) };
                return Err(ZeError::new(
                    ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                    format!("mapping a piece of the IPC range: {e}"),
                ));
            }
            at += plen;
        }
        let ptr = base as usize + w.delta as usize;
        self.lock().insert(
            ptr,
            Opened {
                map_base: base as usize,
                map_len: len,
                size: w.size as usize,
            },
        );
        Ok(ptr)
    }

    /// `zeMemCloseIpcHandle`: `ptr` must be what an open returned.
    pub fn close(&self, ptr: usize) -> ZeResult<()> {
        let o = self.lock().remove(&ptr).ok_or_else(|| {
            ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                format!("{ptr:#x} is not memory this context opened from an IPC handle"),
            )
        })?;
        // SAFETY: our own mapping, removed from the table, unmapped once.
        unsafe { libc::munmap(o.map_base as *mut libc::c_void, o.map_len) };
        Ok(())
    }

    /// Base and size of the opened memory containing `ptr`.
    pub fn range(&self, ptr: usize) -> Option<(usize, usize)> {
        let m = self.lock();
        let (&base, o) = m.range(..=ptr).next_back()?;
        (ptr - base < o.size).then_some((base, o.size))
    }
}

impl Drop for Imports {
    fn drop(&mut self) {
        let m = std::mem::take(self.opened.get_mut().unwrap_or_else(|e| e.into_inner()));
        for o in m.into_values() {
            // SAFETY: our own mappings, unmapped once with the context.
            unsafe { libc::munmap(o.map_base as *mut libc::c_void, o.map_len) };
        }
    }
}

/// "ZKEP": an event pool handle.
pub const POOL_MAGIC: u32 = 0x5a4b_4550;

/// The content of a `ze_ipc_event_pool_handle_t` (64 bytes, native endian): magic `"ZKEP"`,
/// version 1, pid, fd, inode, device (as in [`Wire`]), the pool's event count and flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolWire {
    /// The pool's shared slots.
    pub file: Remote,
    /// Events in the pool.
    pub count: u32,
    /// The pool's flags.
    pub flags: u32,
}

impl PoolWire {
    /// The 64 bytes of the handle.
    pub fn encode(&self) -> ze_ipc_event_pool_handle_t {
        let mut b = HandleBytes::new(POOL_MAGIC);
        b.put(8, &self.file.pid.to_ne_bytes());
        b.put(12, &self.file.fd.to_ne_bytes());
        b.put(16, &self.file.ino.to_ne_bytes());
        b.put(24, &self.file.dev.to_ne_bytes());
        b.put(32, &self.count.to_ne_bytes());
        b.put(36, &self.flags.to_ne_bytes());
        ze_ipc_event_pool_handle_t { data: b.into_chars() }
    }

    /// Decodes a handle; `INVALID_ARGUMENT` when it is not one of this driver's.
    pub fn decode(h: &ze_ipc_event_pool_handle_t) -> ZeResult<PoolWire> {
        let b = HandleBytes::read(&h.data, POOL_MAGIC, "IPC event pool handle")?;
        let (u32_at, u64_at) = (|i| b.u32_at(i), |i| b.u64_at(i));
        let w = PoolWire {
            file: Remote {
                pid: u32_at(8) as i32,
                fd: u32_at(12) as i32,
                ino: u64_at(16),
                dev: u64_at(24),
            },
            count: u32_at(32),
            flags: u32_at(36),
        };
        if w.file.pid <= 0 || w.file.fd < 0 || w.count == 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the IPC event pool handle is corrupt",
            ));
        }
        Ok(w)
    }
}

/// "ZKCB": a counter-based event handle.
pub const COUNTER_MAGIC: u32 = 0x5a4b_4342;

/// The content of a `ze_ipc_event_counter_based_handle_t` (64 bytes, native endian): magic
/// `"ZKCB"`, version 1, pid, fd, inode, device of the counter's `memfd` (as in [`Wire`]), and
/// the event's counter-based flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterWire {
    /// The event's shared counter.
    pub file: Remote,
    /// `ze_event_counter_based_flags_t` of the exported event.
    pub flags: u32,
}

impl CounterWire {
    /// The 64 bytes of the handle.
    pub fn encode(&self) -> ze_ipc_event_counter_based_handle_t {
        let mut b = HandleBytes::new(COUNTER_MAGIC);
        b.put(8, &self.file.pid.to_ne_bytes());
        b.put(12, &self.file.fd.to_ne_bytes());
        b.put(16, &self.file.ino.to_ne_bytes());
        b.put(24, &self.file.dev.to_ne_bytes());
        b.put(32, &self.flags.to_ne_bytes());
        ze_ipc_event_counter_based_handle_t { data: b.into_chars() }
    }

    /// Decodes a handle; `INVALID_ARGUMENT` when it is not one of this driver's.
    pub fn decode(h: &ze_ipc_event_counter_based_handle_t) -> ZeResult<CounterWire> {
        let b = HandleBytes::read(&h.data, COUNTER_MAGIC, "IPC counter-based event handle")?;
        let (u32_at, u64_at) = (|i| b.u32_at(i), |i| b.u64_at(i));
        let w = CounterWire {
            file: Remote {
                pid: u32_at(8) as i32,
                fd: u32_at(12) as i32,
                ino: u64_at(16),
                dev: u64_at(24),
            },
            flags: u32_at(32),
        };
        if w.file.pid <= 0 || w.file.fd < 0 {
            return Err(ZeError::new(
                ZE_RESULT_ERROR_INVALID_ARGUMENT,
                "the IPC counter-based event handle is corrupt",
            ));
        }
        Ok(w)
    }
}
