//! What a file looks like before the dynamic loader sees it, so that a script or a text file
//! gets advice rather than "invalid ELF header".

/// The kinds of file that matter to the loader.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// An ELF shared object (or a position-independent executable: only the loader can tell).
    ElfShared,
    /// An ELF executable that is not position-independent.
    ElfExecutable,
    /// Another ELF file (object file, core dump).
    ElfOther,
    /// A Mach-O or PE file: left to the platform's loader.
    OtherBinaryFormat,
    /// Text: a script when it starts with `#!`. Holds its first line, shortened.
    Text(String),
    /// None of the above.
    Unknown,
}

const ELF_MAGIC: &[u8] = b"\x7fELF";
const ET_EXEC: u16 = 2;
const ET_DYN: u16 = 3;

/// How much of a file is read to tell what it is (and, usually, all of an ELF's headers).
pub(crate) const HEAD_LEN: u64 = 4096;

/// What a file is, from its first [`HEAD_LEN`] bytes.
pub(crate) fn classify(head: &[u8]) -> FileKind {
    if head.starts_with(ELF_MAGIC) {
        return match elf_type(head) {
            Some(ET_DYN) => FileKind::ElfShared,
            Some(ET_EXEC) => FileKind::ElfExecutable,
            _ => FileKind::ElfOther,
        };
    }
    let macho = [
        [0xfe, 0xed, 0xfa, 0xce],
        [0xfe, 0xed, 0xfa, 0xcf],
        [0xce, 0xfa, 0xed, 0xfe],
        [0xcf, 0xfa, 0xed, 0xfe],
        [0xca, 0xfe, 0xba, 0xbe],
    ];
    if macho.iter().any(|m| head.starts_with(m)) || head.starts_with(b"MZ") {
        return FileKind::OtherBinaryFormat;
    }
    if looks_like_text(head) {
        return FileKind::Text(first_line(head));
    }
    FileKind::Unknown
}

fn elf_type(head: &[u8]) -> Option<u16> {
    let bytes = [*head.get(16)?, *head.get(17)?];
    match head.get(5)? {
        1 => Some(u16::from_le_bytes(bytes)),
        2 => Some(u16::from_be_bytes(bytes)),
        _ => None,
    }
}

fn looks_like_text(head: &[u8]) -> bool {
    if head.is_empty() || head.contains(&0) {
        return false;
    }
    // A multi-byte character may be cut at the end of the sample.
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && e.valid_up_to() + 4 >= head.len(),
    }
}

fn first_line(head: &[u8]) -> String {
    let text = String::from_utf8_lossy(head);
    let line = text.lines().next().unwrap_or_default().trim();
    let mut short: String = line.chars().take(60).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    if short.is_empty() {
        "a text file".to_owned()
    } else {
        format!("`{short}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_and_text_are_text() {
        assert_eq!(
            classify(b"#!/bin/sh\necho hi\n"),
            FileKind::Text("`#!/bin/sh`".into())
        );
        assert_eq!(classify(b"\n\n"), FileKind::Text("a text file".into()));
    }

    #[test]
    fn random_bytes_are_unknown() {
        assert_eq!(classify(&[0x13, 0x00, 0xff, 0x80, 0x01]), FileKind::Unknown);
        assert_eq!(classify(b""), FileKind::Unknown);
    }

    #[test]
    fn elf_types_are_read_in_the_file_s_byte_order() {
        let mut head = b"\x7fELF\x02\x01\x01".to_vec();
        head.resize(18, 0);
        head[16] = 3;
        assert_eq!(classify(&head), FileKind::ElfShared);
        head[16] = 2;
        assert_eq!(classify(&head), FileKind::ElfExecutable);
    }
}
