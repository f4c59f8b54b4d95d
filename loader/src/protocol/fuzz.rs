//! Hostile bytes on both wire protocols, from the agent's side: what a plugin process
//! (length frames) or a long-running hook (JSON lines) may write, fed to the agent's readers
//! and decoders. Random bytes, and valid messages cut, flipped, spliced and with their
//! lengths lied about, from a seeded generator, so that a failure names a seed that replays
//! it. The readers must return (a message or an error), never panic, and never keep more
//! than their bound. `AGENT_HOOKS_FUZZ_CASES` sets how many cases each protocol gets
//! (default 20,000, a few seconds); `AGENT_HOOKS_FUZZ_SEED` replays one seed.

use std::io::Cursor;

use super::{
    frames::{read_frame, FromPlugin, MAX_FRAME},
    lines::{decode, read_line, MAX_LINE},
};

/// xorshift64*: small, seeded, good enough to explore bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Valid lines of the long-running hooks' protocol (the JSON of a frame, too).
const LINES: &[&str] = &[
    r#"{"type":"hello","protocol":1,"name":"guard","events":["tool_call"],"commands":[{"name":"count","description":"Show the count"}]}"#,
    r#"{"type":"answer","id":7,"block":"no rm -rf"}"#,
    r#"{"type":"answer","id":7,"output":{"decision":"approve"}}"#,
    r#"{"type":"answer","id":7,"error":"bad"}"#,
    r#"{"type":"request","id":2,"event":7,"method":"ui_confirm","title":"Push","message":"Force?"}"#,
    r#"{"type":"request","id":3,"method":"send_message","message":{"custom_type":"n","content":"hi"}}"#,
    r#"{"type":"Done","id":1,"result":{"Ok":{"output":"{}"}}}"#,
    r#"{"type":"Hello","protocol":1,"interface_version":"1.1.0"}"#,
    r#"{"type":"Request","id":1,"call":2,"request":{"method":"cwd"}}"#,
];

/// One hostile input: random bytes, or a valid message mutated.
fn case(rng: &mut Rng) -> Vec<u8> {
    if rng.below(4) == 0 {
        let len = rng.below(512);
        return (0..len).map(|_| rng.next() as u8).collect();
    }
    let mut bytes = LINES[rng.below(LINES.len())].as_bytes().to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 if !bytes.is_empty() => {
                let i = at.min(bytes.len() - 1);
                bytes[i] ^= 1 << rng.below(8);
            }
            1 => bytes.truncate(at),
            2 => bytes.insert(at, rng.next() as u8),
            3 => {
                let other = LINES[rng.below(LINES.len())].as_bytes();
                let from = rng.below(other.len());
                drop(bytes.splice(at..at, other[from..].iter().copied()));
            }
            4 => drop(bytes.splice(at..at, b"\n".iter().copied())),
            _ => drop(bytes.splice(at..at, br#"[[[[{"a":"#.iter().copied())),
        }
    }
    bytes
}

fn cases() -> (u64, usize) {
    let seed = std::env::var("AGENT_HOOKS_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok());
    let count = std::env::var("AGENT_HOOKS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    match seed {
        Some(seed) => (seed, 1),
        None => (0x5eed_0024, count),
    }
}

#[test]
fn hostile_frames_are_read_or_refused_never_a_panic() {
    let (first, count) = cases();
    for n in 0..count as u64 {
        let seed = first.wrapping_add(n).max(1);
        let mut rng = Rng(seed);
        let json = case(&mut rng);
        // The length prefix: true, short, long, or a lie past the bound.
        let len = match rng.below(4) {
            0 => json.len() as u32,
            1 => rng.below(json.len() + 1) as u32,
            2 => (json.len() + rng.below(64)) as u32,
            _ => (MAX_FRAME as u32).wrapping_add(rng.next() as u32 % 1024),
        };
        let mut bytes = len.to_le_bytes().to_vec();
        bytes.extend_from_slice(&json);
        let mut input = Cursor::new(bytes);
        // Read frames until the input ends or one is refused, as the agent's reader does.
        for _ in 0..64 {
            if read_frame::<FromPlugin>(&mut input).is_err() {
                break;
            }
        }
        assert!(
            input.position() as usize <= input.get_ref().len(),
            "seed {seed}"
        );
    }
}

#[test]
fn hostile_lines_are_decoded_or_refused_never_a_panic() {
    let (first, count) = cases();
    for n in 0..count as u64 {
        let seed = first.wrapping_add(n).max(1);
        let mut rng = Rng(seed);
        let mut bytes = case(&mut rng);
        bytes.push(b'\n');
        let mut input = Cursor::new(bytes);
        while let Ok(line) = read_line(&mut input) {
            assert!(line.len() <= MAX_LINE, "seed {seed}");
            let _ = decode(&line);
        }
    }
}

/// A line longer than the bound, with no newline: refused, and not kept whole.
#[test]
fn an_endless_line_is_refused_at_its_bound() {
    let bytes = vec![b'x'; MAX_LINE + 2];
    let mut input = Cursor::new(bytes);
    assert!(read_line(&mut input).is_err());
}
