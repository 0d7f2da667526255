//! Server-sent events, parsed in one pass over the bytes: each byte is looked at once
//! however the stream is cut into pieces (an event without a line end cannot make the
//! parser quadratic), and one event's size is bounded.
//!
//! Only what a chat stream needs: `data:` lines (joined by `\n`), dispatched at a blank
//! line; comments and other fields are skipped. Lines end with `\n`, `\r\n` or `\r`.

/// Why the stream was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct EventTooLarge {
    pub limit: usize,
}

pub(crate) struct SseParser {
    /// Bytes received and not yet consumed; `buffer[start..]` is the current line.
    buffer: Vec<u8>,
    start: usize,
    /// Where the search for the current line's end resumes.
    scanned: usize,
    /// The current event's data so far.
    data: Vec<u8>,
    has_data: bool,
    /// A `\r` ended the last line: a `\n` right after it belongs to it.
    after_cr: bool,
    max_event: usize,
}

impl SseParser {
    pub(crate) fn new(max_event: usize) -> Self {
        SseParser {
            buffer: Vec::new(),
            start: 0,
            scanned: 0,
            data: Vec::new(),
            has_data: false,
            after_cr: false,
            max_event,
        }
    }

    /// Takes the next piece of the stream; the events it completed are appended to
    /// `events` (their data, as text).
    pub(crate) fn push(
        &mut self,
        bytes: &[u8],
        events: &mut Vec<String>,
    ) -> Result<(), EventTooLarge> {
        let mut bytes = bytes;
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        self.buffer.extend_from_slice(bytes);
        while let Some(offset) = memchr::memchr2(b'\n', b'\r', &self.buffer[self.scanned..]) {
            let end = self.scanned + offset;
            let line_end = self.buffer[end];
            let line = std::mem::take(&mut self.buffer);
            self.line(&line[self.start..end], events)?;
            self.buffer = line;
            let mut next = end + 1;
            if line_end == b'\r' {
                match self.buffer.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            self.start = next;
            self.scanned = next;
        }
        self.scanned = self.buffer.len();
        if self.buffer.len() - self.start + self.data.len() > self.max_event {
            return Err(EventTooLarge {
                limit: self.max_event,
            });
        }
        // Drop consumed bytes once they are most of the buffer: amortized linear.
        if self.start > 0 && self.start * 2 >= self.buffer.len() {
            self.buffer.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        Ok(())
    }

    fn line(&mut self, line: &[u8], events: &mut Vec<String>) -> Result<(), EventTooLarge> {
        if line.is_empty() {
            if self.has_data {
                events.push(String::from_utf8_lossy(&self.data).into_owned());
            }
            self.data.clear();
            self.has_data = false;
            return Ok(());
        }
        let (field, value) = match line.iter().position(|b| *b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        if field == b"data" {
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data.extend_from_slice(value);
            self.has_data = true;
            if self.data.len() > self.max_event {
                return Err(EventTooLarge {
                    limit: self.max_event,
                });
            }
        }
        Ok(())
    }

    /// At the end of the stream: an event still open is dispatched, as browsers do not
    /// but servers that omit the last blank line expect.
    pub(crate) fn finish(&mut self, events: &mut Vec<String>) {
        if self.start < self.buffer.len() {
            let line = std::mem::take(&mut self.buffer);
            let _ = self.line(&line[self.start..], events);
        }
        if self.has_data {
            events.push(String::from_utf8_lossy(&self.data).into_owned());
            self.has_data = false;
            self.data.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pieces: &[&[u8]]) -> Vec<String> {
        let mut parser = SseParser::new(1 << 20);
        let mut events = Vec::new();
        for piece in pieces {
            parser.push(piece, &mut events).expect("within limits");
        }
        parser.finish(&mut events);
        events
    }

    #[test]
    fn events_are_the_same_however_the_stream_is_cut() {
        let stream: &[u8] = b": keep-alive\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata:two\ndata: lines\n\ndata: cr\r\rdata: [DONE]\n\n";
        let whole = parse(&[stream]);
        assert_eq!(whole, ["{\"a\":1}", "two\nlines", "cr", "[DONE]"]);
        for cut in 1..stream.len() {
            assert_eq!(
                parse(&[&stream[..cut], &stream[cut..]]),
                whole,
                "cut at {cut}"
            );
        }
        let bytewise: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(parse(&bytewise), whole);
        assert_eq!(parse(&[b"data: last"]), ["last"]);
    }

    #[test]
    fn an_endless_event_is_refused_in_linear_time() {
        let mut parser = SseParser::new(8 << 20);
        let mut events = Vec::new();
        let piece = vec![b'x'; 64 * 1024];
        let started = std::time::Instant::now();
        let mut refused = None;
        parser.push(b"data: ", &mut events).expect("start");
        for i in 0..1000 {
            if let Err(e) = parser.push(&piece, &mut events) {
                refused = Some((i, e));
                break;
            }
        }
        let (at, error) = refused.expect("refused");
        assert_eq!(error, EventTooLarge { limit: 8 << 20 });
        assert_eq!(at, 127, "refused once past 8 MiB");
        assert!(events.is_empty());
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }
}
