//! Hostile bytes on both wire protocols, from the agent's side: what a plugin process
//! (length frames) or a long-running hook (JSON lines) may write, fed to the agent's readers
//! and decoders, with proptest. Random bytes, and valid messages cut, flipped, spliced,
//! broken by newlines and nested, with their lengths told true or lied about. The readers
//! must return (a message or an error), never panic, never keep a line past its bound, and
//! never ask for much more memory than the bytes that came (a length prefix alone is not
//! believed: 4 bytes saying 64 MiB must not allocate 64 MiB).
//!
//! What proptest ever found is kept in `loader/proptest-regressions/protocol/fuzz.txt` and
//! replayed first on every run (the first entry: `read_frame` allocating the whole of a
//! lying length before any byte came). `AGENT_HOOKS_FUZZ_CASES` sets how many cases each
//! property gets (default 3,000: about a second of a debug build for all of them).

use proptest::{collection::vec, prelude::*};

use super::{
    frames::{raw_call, read_frame, write_call, FromPlugin, Message, Target, ToPlugin, MAX_FRAME},
    lines::{decode, read_line, MAX_LINE},
};
use crate::sys::largest_allocation::{largest_during, Noting};

#[global_allocator]
static NOTING: Noting = Noting;

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

/// Frames of the calls and answers each way, whose decoding has a quick way beside the
/// derived one, and their neighbours.
const FRAMES: &[&str] = &[
    r#"{"type":"call","id":7,"target":{"kind":"handler","event":"tool_call","index":1,"serial":42},"payload":"{\"tool_name\":\"exec\",\"input\":{\"command\":\"ls\"}}"}"#,
    r#"{"id":7,"payload":"{}","target":{"kind":"handler","event":"tool_call","index":0,"serial":1},"type":"call"}"#,
    r#"{"type":"done","id":7,"result":{"status":"ok","output":"{\"block\":true}"}}"#,
    r#"{"type":"done","id":7,"result":{"status":"failed","message":"no","panicked":true}}"#,
    r#"{"type":"reply","id":3,"result":{"status":"ok","value":true}}"#,
    r#"{"type":"goodbye"}"#,
    r#"{"type":"call","id":7,"target":{"kind":"handler","event":"tool_call","index":1,"serial":42},"payload_bytes":45}{"tool_name":"exec","input":{"command":"ls"}}"#,
    r#"{"type":"request","id":9,"call":7,"request":{"method":"ui_confirm","title":"Run it?","message":"rm -rf build"}}"#,
    r#"{"type":"call","id":7,"target":{"kind":"renderer","index":2,"options":"{}"},"payload_bytes":2}{}"#,
    r#"{"type":"done","id":7,"result":{"status":"ok","output":null,"message":"x","panicked":true}}"#,
    r#"{"type":"done","id":7,"result":{"status":"failed","panicked":false}}"#,
];

/// One change to a message; positions are taken modulo its length.
#[derive(Debug, Clone)]
enum Change {
    Flip(usize, u8),
    Cut(usize),
    Insert(usize, u8),
    Splice(usize, usize, usize),
    Newline(usize),
    Nest(usize),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<usize>(), 0..8u8).prop_map(|(at, bit)| Change::Flip(at, bit)),
        any::<usize>().prop_map(Change::Cut),
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Change::Insert(at, b)),
        (any::<usize>(), 0..LINES.len(), any::<usize>())
            .prop_map(|(at, other, from)| Change::Splice(at, other, from)),
        any::<usize>().prop_map(Change::Newline),
        any::<usize>().prop_map(Change::Nest),
    ]
}

fn apply(bytes: &mut Vec<u8>, change: &Change) {
    let at = |n: usize, len: usize| n % (len + 1);
    match *change {
        Change::Flip(n, bit) if !bytes.is_empty() => {
            let i = n % bytes.len();
            bytes[i] ^= 1 << bit;
        }
        Change::Flip(..) => {}
        Change::Cut(n) => bytes.truncate(at(n, bytes.len())),
        Change::Insert(n, b) => bytes.insert(at(n, bytes.len()), b),
        Change::Splice(n, other, from) => {
            let other = LINES[other].as_bytes();
            let i = at(n, bytes.len());
            drop(bytes.splice(i..i, other[from % other.len()..].iter().copied()));
        }
        Change::Newline(n) => bytes.insert(at(n, bytes.len()), b'\n'),
        Change::Nest(n) => {
            let i = at(n, bytes.len());
            drop(bytes.splice(i..i, br#"[[[[{"a":"#.iter().copied()));
        }
    }
}

/// One hostile message: random bytes, or a valid one changed a few times.
fn message() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => vec(any::<u8>(), 0..512),
        3 => (0..LINES.len(), vec(change(), 0..5)).prop_map(|(line, changes)| {
            let mut bytes = LINES[line].as_bytes().to_vec();
            for change in &changes {
                apply(&mut bytes, change);
            }
            bytes
        }),
    ]
}

/// A frame's JSON: one of [`FRAMES`], changed a few times (spliced with [`LINES`]).
fn frame() -> impl Strategy<Value = Vec<u8>> {
    (0..FRAMES.len(), vec(change(), 0..4)).prop_map(|(frame, changes)| {
        let mut bytes = FRAMES[frame].as_bytes().to_vec();
        for change in &changes {
            apply(&mut bytes, change);
        }
        bytes
    })
}

/// What a frame's length prefix says of its JSON.
#[derive(Debug, Clone)]
enum Length {
    True,
    Short(usize),
    Long(usize),
    /// Anything up to the bound, whatever follows.
    Lie(u32),
    /// Past the bound.
    Past(u32),
}

fn length() -> impl Strategy<Value = Length> {
    prop_oneof![
        Just(Length::True),
        any::<usize>().prop_map(Length::Short),
        (0..64usize).prop_map(Length::Long),
        (0..=MAX_FRAME as u32).prop_map(Length::Lie),
        any::<u32>().prop_map(Length::Past),
    ]
}

fn prefix(json: &[u8], length: &Length) -> u32 {
    match *length {
        Length::True => json.len() as u32,
        Length::Short(n) => (n % (json.len() + 1)) as u32,
        Length::Long(n) => (json.len() + n) as u32,
        Length::Lie(n) => n,
        Length::Past(n) => (MAX_FRAME as u32).saturating_add(1).max(n),
    }
}

/// How much one read may ask for: what came, twice over, and never less than a small
/// buffer's worth.
fn memory_bound(input: usize) -> usize {
    (2 * input).max(64 << 10)
}

fn config() -> ProptestConfig {
    let cases = std::env::var("AGENT_HOOKS_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000);
    ProptestConfig {
        cases,
        max_shrink_iters: 2_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Frames as a plugin process may write them, one after another: each is read or
    /// refused, and no read asks for memory the bytes did not bring.
    #[test]
    fn hostile_frames_are_read_or_refused_within_their_bytes(
        frames in vec((message(), length()), 1..4)
    ) {
        let mut bytes = Vec::new();
        for (json, length) in &frames {
            bytes.extend_from_slice(&prefix(json, length).to_le_bytes());
            bytes.extend_from_slice(json);
        }
        let total = bytes.len();
        let mut input = &bytes[..];
        let ((), largest) = largest_during(|| {
            // As the agent's reader does: until the input ends or a frame is refused.
            for _ in 0..64 {
                if read_frame::<FromPlugin>(&mut input).is_err() {
                    break;
                }
            }
        });
        let read = total - input.len();
        prop_assert!(read <= total);
        prop_assert!(
            largest <= memory_bound(total),
            "one allocation of {largest} bytes for {total} bytes of input"
        );
    }

    /// A call whose payload follows its JSON (which the derived decoding does not read) is
    /// the call its payload in the JSON gives, whatever the bytes.
    #[test]
    fn a_call_s_payload_after_the_json_reads_as_in_it(json in prop_oneof![frame(), message()]) {
        if let Some(call) = raw_call(&json) {
            let escaped = serde_json::to_vec(&call).unwrap_or_default();
            prop_assert_eq!(<ToPlugin as Message>::decode(&escaped).ok(), Some(call));
        }
    }

    /// Any payload crosses a call unchanged, after the JSON as in it.
    #[test]
    fn any_payload_crosses_a_call_either_way(payload in any::<String>(), id in any::<u64>(), raw in any::<bool>()) {
        let target = Target::Command { index: 3 };
        let mut frame = Vec::new();
        write_call(&mut frame, id, &target, &payload, raw).unwrap_or_default();
        let read = read_frame::<ToPlugin>(&mut frame.as_slice()).ok();
        prop_assert_eq!(read, Some(ToPlugin::Call { id, target, payload }));
    }

    /// Lines as a long-running hook may write them: each is decoded or refused, none kept
    /// past the bound, and no read asks for memory the bytes did not bring.
    #[test]
    fn hostile_lines_are_decoded_or_refused_within_their_bytes(
        lines in vec(message(), 1..4)
    ) {
        let mut bytes = lines.join(&b'\n');
        bytes.push(b'\n');
        let total = bytes.len();
        let mut input = &bytes[..];
        let (longest, largest) = largest_during(|| {
            let mut longest = 0;
            while let Ok(line) = read_line(&mut input) {
                longest = longest.max(line.len());
                let _ = decode(&line);
            }
            longest
        });
        prop_assert!(longest <= MAX_LINE);
        prop_assert!(
            largest <= memory_bound(total),
            "one allocation of {largest} bytes for {total} bytes of input"
        );
    }
}

/// A line longer than the bound, with no newline: refused, and not kept whole.
#[test]
fn an_endless_line_is_refused_at_its_bound() {
    let bytes = vec![b'x'; MAX_LINE + 2];
    let mut input = &bytes[..];
    assert!(read_line(&mut input).is_err());
}

/// The lying length of the first kept regression, by hand: 4 bytes saying 64 MiB, then 10
/// bytes and the end. Refused as closed, after reading what came.
#[test]
fn a_length_that_lies_allocates_what_came_not_what_it_said() {
    let mut bytes = (MAX_FRAME as u32).to_le_bytes().to_vec();
    bytes.extend_from_slice(b"{\"type\":1}");
    let (read, largest) = largest_during(|| read_frame::<FromPlugin>(&mut &bytes[..]));
    assert!(read.is_err());
    assert!(largest <= memory_bound(14), "{largest}");
}
