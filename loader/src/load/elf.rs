//! A check the dynamic loader does not make: that every loadable segment of an ELF file is
//! inside the file. glibc maps segments without checking, so a truncated library would load
//! and then crash the process with SIGBUS when a page past the end is touched. The check
//! runs on the bytes that are then loaded (a sealed copy), so it holds for what runs.

const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;

/// Why an ELF image cannot be whole, or `Ok` when every loadable segment lies inside it.
pub(crate) fn check_segments(bytes: &[u8]) -> Result<(), String> {
    let len = bytes.len() as u64;
    let Some(layout) = Layout::from_ident(bytes) else {
        return Err(format!("its ELF header is cut short ({len} bytes)"));
    };
    let table = layout.program_headers(bytes);
    let table_end = table
        .offset
        .saturating_add(u64::from(table.count) * u64::from(table.entry_size));
    let headers = usize::try_from(table.offset)
        .ok()
        .zip(usize::try_from(table_end).ok())
        .and_then(|(start, end)| bytes.get(start..end));
    let Some(headers) = headers.filter(|_| u64::from(table.entry_size) >= layout.min_entry_size())
    else {
        return Err(format!(
            "its program headers end at byte {table_end}, past the end of the file ({len} bytes)"
        ));
    };
    for entry in headers.chunks(usize::from(table.entry_size)) {
        let segment = layout.segment(entry);
        if matches!(segment.kind, PT_LOAD | PT_DYNAMIC) {
            let end = segment.offset.saturating_add(segment.file_size);
            if end > len {
                return Err(format!(
                    "a segment ends at byte {end}, past the end of the file ({len} bytes)"
                ));
            }
        }
    }
    Ok(())
}

struct Layout {
    is_64: bool,
    little_endian: bool,
}

struct Table {
    offset: u64,
    entry_size: u16,
    count: u16,
}

struct Segment {
    kind: u32,
    offset: u64,
    file_size: u64,
}

impl Layout {
    fn from_ident(head: &[u8]) -> Option<Self> {
        let is_64 = match head.get(4)? {
            1 => false,
            2 => true,
            _ => return None,
        };
        let little_endian = *head.get(5)? == 1;
        let needed = if is_64 { 64 } else { 52 };
        (head.len() >= needed).then_some(Self {
            is_64,
            little_endian,
        })
    }

    fn min_entry_size(&self) -> u64 {
        if self.is_64 {
            56
        } else {
            32
        }
    }

    fn u16(&self, b: &[u8], at: usize) -> u16 {
        let bytes = [b[at], b[at + 1]];
        if self.little_endian {
            u16::from_le_bytes(bytes)
        } else {
            u16::from_be_bytes(bytes)
        }
    }

    fn u32(&self, b: &[u8], at: usize) -> u32 {
        let bytes = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if self.little_endian {
            u32::from_le_bytes(bytes)
        } else {
            u32::from_be_bytes(bytes)
        }
    }

    fn u64(&self, b: &[u8], at: usize) -> u64 {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&b[at..at + 8]);
        if self.little_endian {
            u64::from_le_bytes(bytes)
        } else {
            u64::from_be_bytes(bytes)
        }
    }

    fn program_headers(&self, header: &[u8]) -> Table {
        if self.is_64 {
            Table {
                offset: self.u64(header, 32),
                entry_size: self.u16(header, 54),
                count: self.u16(header, 56),
            }
        } else {
            Table {
                offset: u64::from(self.u32(header, 28)),
                entry_size: self.u16(header, 42),
                count: self.u16(header, 44),
            }
        }
    }

    fn segment(&self, entry: &[u8]) -> Segment {
        if self.is_64 {
            Segment {
                kind: self.u32(entry, 0),
                offset: self.u64(entry, 8),
                file_size: self.u64(entry, 32),
            }
        } else {
            Segment {
                kind: self.u32(entry, 0),
                offset: u64::from(self.u32(entry, 4)),
                file_size: u64::from(self.u32(entry, 16)),
            }
        }
    }
}
