//! What the agent and its keeper say to each other over their socket: length-prefixed
//! frames, a request to start a process (its descriptors ride along as `SCM_RIGHTS`), and
//! the keeper's answers: started, not started, ended. Both ends are this crate; the bounds
//! are there because a frame is read before it is trusted.

use std::{
    ffi::OsString,
    io::{self, Read},
    os::{
        fd::OwnedFd,
        unix::{ffi::OsStrExt, net::UnixStream},
    },
};

/// The largest frame either end accepts (a request carries the whole environment and the
/// arguments: `ARG_MAX` is 2 MiB on Linux).
pub(super) const MAX_FRAME: usize = 8 << 20;

/// The version of what the agent and its keeper say: 2 since requests and answers go over a
/// socket each (1 was one socket, and a hello of `K` alone).
pub(super) const VERSION: u8 = 2;

/// What the keeper writes first, once it serves: `K` and [`VERSION`]. The agent waits for it.
pub(super) const HELLO: [u8; 2] = [b'K', VERSION];

/// A process to start, as the agent asks: everything `execve` and the child's setup need.
/// Its environment is the agent's, with `set` added or replacing and `removed` taken out: the
/// whole of it is written into the frame, each variable copied once, straight from the
/// agent's environment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Request<'a> {
    pub program: OsString,
    /// Its `argv[0]`.
    pub arg0: OsString,
    pub args: Vec<OsString>,
    pub cwd: OsString,
    /// Variables added to (or replacing in) the agent's environment; a name given twice takes
    /// its last value.
    pub set: &'a [(OsString, OsString)],
    /// Variables taken out of it.
    pub removed: &'a [OsString],
    /// Whether the agent's environment is the base; when not, `set` is the whole of it.
    pub inherit: bool,
    /// stdin is the first descriptor sent; otherwise `/dev/null` (and stdout, stderr are the
    /// first two).
    pub stdin: bool,
    /// A limit on the child's data, in bytes (`RLIMIT_DATA`); 0: none.
    pub memory: u64,
}

/// A request as the keeper reads it, borrowing its frame's body (nothing copied).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Asked<'a> {
    pub program: &'a [u8],
    pub arg0: &'a [u8],
    pub args: Vec<&'a [u8]>,
    pub cwd: &'a [u8],
    /// The whole environment, `NAME=value` each.
    pub env: Vec<&'a [u8]>,
    pub stdin: bool,
    pub memory: u64,
}

/// What the keeper answers, and tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The process runs, with this id.
    Started(i32),
    /// It could not be started: the OS error's code.
    Failed(i32),
    /// A process the keeper started for the agent ended: its wait status and peak resident
    /// memory in KiB.
    Ended {
        pid: i32,
        status: i32,
        peak_kib: i64,
    },
}

fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    put_parts(out, &[bytes]);
}

/// `parts` as one length-prefixed string, joined.
fn put_parts(out: &mut Vec<u8>, parts: &[&[u8]]) {
    let length = parts.iter().map(|part| part.len()).sum::<usize>();
    out.extend_from_slice(&u32::try_from(length).unwrap_or(u32::MAX).to_le_bytes());
    for part in parts {
        out.extend_from_slice(part);
    }
}

/// A frame whose body is written by `write` after room for its length, which is filled in
/// once the body is whole (the body is not copied into the frame afterwards).
fn frame_with(capacity: usize, write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::with_capacity(capacity);
    out.extend_from_slice(&[0; 4]);
    write(&mut out);
    let length = u32::try_from(out.len() - 4).unwrap_or(u32::MAX);
    out[..4].copy_from_slice(&length.to_le_bytes());
    out
}

impl Request<'_> {
    /// The request as one frame.
    pub(crate) fn encode(&self) -> Vec<u8> {
        frame_with(4096, |body| {
            body.push(u8::from(self.stdin));
            body.extend_from_slice(&self.memory.to_le_bytes());
            for field in [&self.program, &self.arg0, &self.cwd] {
                put(body, field.as_bytes());
            }
            body.extend_from_slice(&u32::try_from(self.args.len()).unwrap_or(0).to_le_bytes());
            for arg in &self.args {
                put(body, arg.as_bytes());
            }
            // The variables' count, filled in once they are written.
            let count_at = body.len();
            body.extend_from_slice(&[0; 4]);
            let mut count: u32 = 0;
            if self.inherit {
                crate::sys::process::for_each_variable(|name, entry| {
                    let replaced = self.set.iter().any(|(n, _)| n.as_bytes() == name)
                        || self.removed.iter().any(|n| n.as_bytes() == name);
                    if !replaced {
                        put(body, entry);
                        count += 1;
                    }
                });
            }
            for (i, (name, value)) in self.set.iter().enumerate() {
                // A name given twice takes its last value, as with std's `Command::env`.
                if !self.set[i + 1..].iter().any(|(later, _)| later == name) {
                    put_parts(body, &[name.as_bytes(), b"=", value.as_bytes()]);
                    count += 1;
                }
            }
            body[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
        })
    }

    /// A request out of a frame's body, borrowing it.
    pub(crate) fn decode(body: &[u8]) -> io::Result<Asked<'_>> {
        let mut at = Reader { body, at: 0 };
        let stdin = at.take(1)?[0] != 0;
        let memory = u64::from_le_bytes(at.array()?);
        let program = at.bytes()?;
        let arg0 = at.bytes()?;
        let cwd = at.bytes()?;
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            let count = u32::from_le_bytes(at.array()?) as usize;
            // Each item takes 4 bytes at least: a count beyond that is a lie.
            list.reserve(count.min(body.len() / 4));
            for _ in 0..count.min(body.len()) {
                list.push(at.bytes()?);
            }
        }
        let [args, env] = lists;
        Ok(Asked {
            program,
            arg0,
            args,
            cwd,
            env,
            stdin,
            memory,
        })
    }
}

impl Answer {
    /// The answer as one frame.
    pub(crate) fn encode(self) -> Vec<u8> {
        frame_with(21, |body| match self {
            Answer::Started(pid) => {
                body.push(b'S');
                body.extend_from_slice(&pid.to_le_bytes());
            }
            Answer::Failed(code) => {
                body.push(b'F');
                body.extend_from_slice(&code.to_le_bytes());
            }
            Answer::Ended {
                pid,
                status,
                peak_kib,
            } => {
                body.push(b'X');
                body.extend_from_slice(&pid.to_le_bytes());
                body.extend_from_slice(&status.to_le_bytes());
                body.extend_from_slice(&peak_kib.to_le_bytes());
            }
        })
    }

    /// An answer out of a frame's body.
    pub(crate) fn decode(body: &[u8]) -> io::Result<Self> {
        let mut at = Reader { body, at: 0 };
        let answer = match at.take(1)?[0] {
            b'S' => Answer::Started(i32::from_le_bytes(at.array()?)),
            b'F' => Answer::Failed(i32::from_le_bytes(at.array()?)),
            b'X' => Answer::Ended {
                pid: i32::from_le_bytes(at.array()?),
                status: i32::from_le_bytes(at.array()?),
                peak_kib: i64::from_le_bytes(at.array()?),
            },
            other => return Err(bad(format!("unknown answer {other}"))),
        };
        Ok(answer)
    }
}

/// Reads one frame's body, and the descriptors that came with it (attached to its first
/// byte): at most [`MAX_FRAME`] bytes, grown as they arrive. `UnexpectedEof` if the stream
/// ended before the frame.
pub(super) fn read_frame(socket: &UnixStream) -> io::Result<(Vec<u8>, Vec<OwnedFd>)> {
    let mut length = [0; 4];
    let (n, fds) = crate::sys::socket::recv_with_fds(socket, &mut length)?;
    if n == 0 {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let mut rest = socket;
    rest.read_exact(&mut length[n..])?;
    let body = read_body(socket, u32::from_le_bytes(length) as usize)?;
    Ok((body, fds))
}

/// The `length` bytes of a body whose prefix was read: room for up to 64 KiB of it is made
/// at once (a request, environment included, is then one `read`, not one per doubling of the
/// buffer), more only as it arrives.
fn read_body(from: impl Read, length: usize) -> io::Result<Vec<u8>> {
    if length > MAX_FRAME {
        return Err(bad(format!("a frame of {length} bytes")));
    }
    let mut body = Vec::with_capacity(length.min(64 << 10));
    from.take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(body)
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// A frame's body read from its start: `at` is the first byte not yet taken.
struct Reader<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.body.len());
        let end = end.ok_or_else(|| bad("a frame cut short".into()))?;
        let bytes = &self.body[self.at..end];
        self.at = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> io::Result<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn bytes(&mut self) -> io::Result<&'a [u8]> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use std::{ffi::OsStr, io::Write};

    use super::*;

    /// `bytes` as they come out of the socket the agent and its keeper share, with a
    /// descriptor (`fd`) attached to their first byte if given; the writer's end closed.
    fn through_a_socket(bytes: &[u8], fd: Option<&OwnedFd>) -> UnixStream {
        use std::os::fd::AsFd;
        let (mut writer, reader) = UnixStream::pair().unwrap();
        let fds: Vec<_> = fd.iter().map(|fd| fd.as_fd()).collect();
        crate::sys::socket::send_with_fds(&writer, bytes, &fds).unwrap();
        writer.flush().unwrap();
        reader
    }

    #[test]
    fn a_request_and_every_answer_come_back_as_they_went() {
        let set = [("A_B_C".into(), "1".into())];
        let request = Request {
            program: "/bin/sh".into(),
            arg0: "sh".into(),
            args: vec!["-c".into(), "true".into()],
            cwd: "/".into(),
            set: &set,
            removed: &[],
            inherit: true,
            stdin: true,
            memory: 1 << 30,
        };
        let (body, fds) = read_frame(&through_a_socket(&request.encode(), None)).unwrap();
        let asked = Request::decode(&body).unwrap();
        assert_eq!(
            (asked.program, asked.arg0, asked.cwd),
            (&b"/bin/sh"[..], &b"sh"[..], &b"/"[..])
        );
        assert_eq!(asked.args, [&b"-c"[..], &b"true"[..]]);
        assert_eq!(asked.env.last(), Some(&&b"A_B_C=1"[..]));
        assert_eq!((asked.stdin, asked.memory), (true, 1 << 30));
        assert!(fds.is_empty());
        let descriptor: OwnedFd = std::fs::File::open("/dev/null").unwrap().into();
        for answer in [
            Answer::Started(7),
            Answer::Failed(2),
            Answer::Ended {
                pid: 7,
                status: 9,
                peak_kib: 1024,
            },
        ] {
            let socket = through_a_socket(&answer.encode(), Some(&descriptor));
            let (body, fds) = read_frame(&socket).unwrap();
            assert_eq!(Answer::decode(&body).unwrap(), answer);
            assert_eq!(fds.len(), 1, "the descriptor comes with its frame");
        }
    }

    #[test]
    fn a_cut_or_lying_frame_is_an_error() {
        let frame = Answer::Started(7).encode();
        assert!(read_frame(&through_a_socket(&frame[..frame.len() - 1], None)).is_err());
        assert!(read_frame(&through_a_socket(&[], None)).is_err());
        assert!(Answer::decode(&[b'S', 1]).is_err());
        let lying = u32::MAX.to_le_bytes();
        assert!(read_frame(&through_a_socket(&lying, None)).is_err());
        assert!(Request::decode(&[1, 0, 0]).is_err());
    }

    /// What std says of the environment, each `NAME=value`: what a request's is held to.
    fn by_std(set: &[(OsString, OsString)], removed: &[OsString]) -> Vec<Vec<u8>> {
        let entry =
            |name: &OsStr, value: &OsStr| [name.as_bytes(), b"=", value.as_bytes()].concat();
        let mut env: Vec<Vec<u8>> = std::env::vars_os()
            .filter(|(name, _)| !set.iter().any(|(n, _)| n == name) && !removed.contains(name))
            .map(|(name, value)| entry(&name, &value))
            .collect();
        env.extend(set.iter().map(|(n, v)| entry(n, v)));
        env
    }

    /// The environment a request carries, as the keeper reads it.
    fn environment_of(set: &[(OsString, OsString)], removed: &[OsString]) -> Vec<Vec<u8>> {
        let request = Request {
            set,
            removed,
            inherit: true,
            ..Request::default()
        };
        let frame = request.encode();
        let asked = Request::decode(&frame[4..]).unwrap();
        asked.env.iter().map(|entry| entry.to_vec()).collect()
    }

    #[test]
    fn a_process_gets_the_agents_environment_with_its_own_variables_set_and_removed() {
        let some = std::env::vars_os()
            .next()
            .map(|(n, _)| n)
            .unwrap_or_default();
        let set = vec![
            ("HOME".into(), "/elsewhere".into()),
            ("AGENT_HOOKS_PROJECT_DIR".into(), "/p".into()),
        ];
        let removed = vec![some.clone()];
        let env = environment_of(&set, &removed);
        assert_eq!(env, by_std(&set, &removed));
        assert!(env.contains(&b"HOME=/elsewhere".to_vec()));
        assert_eq!(env.iter().filter(|e| e.starts_with(b"HOME=")).count(), 1);
        assert!(!env
            .iter()
            .any(|e| { e.starts_with(some.as_bytes()) && e.get(some.len()) == Some(&b'=') }));
        // A name given twice takes its last value.
        let twice = vec![("A_B".into(), "1".into()), ("A_B".into(), "2".into())];
        let env = environment_of(&twice, &[]);
        assert_eq!(env.last(), Some(&b"A_B=2".to_vec()));
        assert_eq!(env.iter().filter(|e| e.starts_with(b"A_B=")).count(), 1);
    }
}
