//! The line protocol between `futhark-rs test` and its worker processes
//! (`futhark-rs test-worker`, see [`super::worker`]).
//!
//! The parent writes one [`Request`] per line to a worker's standard input: a file to test and
//! the plan item to start at. The worker answers on standard output with one [`ItemReport`]
//! line per item it ran, each flushed as soon as the item is done, and then one [`FileDone`]
//! line, after which it reads the next request. A worker ends when its standard input does.
//!
//! The program under test may write to standard output too, possibly without a final newline,
//! so the parent looks for a message at the *end* of each line: the last place where one of the
//! known openings ([`REPORT_START`], [`DONE_START`]) begins. Quotes inside JSON strings are
//! escaped, so those openings never occur within a message.

use serde::{Deserialize, Serialize};

use super::outcome::Verdict;

/// One file for a worker to test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The program's path, as the parent found it.
    pub file: String,
    /// The first plan item to run (later than 0 when a worker died on an earlier item).
    pub start: usize,
}

/// The verdict on the item at `index` of a file's plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemReport {
    /// Position of the item in the plan.
    pub index: usize,
    /// The verdict.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// The end of a worker's answer to one [`Request`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDone {
    /// The file of the request, echoed.
    pub done: String,
    /// Why the worker could not test the file at all (its unreported items fail with this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How every [`ItemReport`] line begins (its first field).
pub const REPORT_START: &str = "{\"index\":";

/// How every [`FileDone`] line begins (its first field).
pub const DONE_START: &str = "{\"done\":";

/// A message found on one line of a worker's output.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The verdict on one item.
    Report(ItemReport),
    /// The end of a file.
    Done(FileDone),
}

/// The message that ends `line`, if any; anything else on the line is the program's output.
pub fn parse_line(line: &str) -> Option<Message> {
    let report = line.rfind(REPORT_START);
    let done = line.rfind(DONE_START);
    if let Some(r) = report.filter(|&r| done.is_none_or(|d| r > d)) {
        serde_json::from_str(&line[r..]).ok().map(Message::Report)
    } else {
        let d = done?;
        serde_json::from_str(&line[d..]).ok().map(Message::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line<T: Serialize>(message: &T) -> String {
        serde_json::to_string(message).expect("serialisable")
    }

    #[test]
    fn messages_round_trip_and_begin_as_announced() {
        let report = ItemReport {
            index: 3,
            verdict: Verdict::fail("boom {\"index\":1}"),
        };
        let text = line(&report);
        assert!(text.starts_with(REPORT_START), "{text}");
        assert_eq!(parse_line(&text), Some(Message::Report(report)));
        let done = FileDone {
            done: "a/b.fut".to_string(),
            error: Some("cannot read".to_string()),
        };
        let text = line(&done);
        assert!(text.starts_with(DONE_START), "{text}");
        assert_eq!(parse_line(&text), Some(Message::Done(done)));
        let request = Request {
            file: "x.fut".to_string(),
            start: 2,
        };
        assert_eq!(
            serde_json::from_str::<Request>(&line(&request)).ok(),
            Some(request)
        );
    }

    #[test]
    fn messages_after_program_output_are_found() {
        let done = line(&FileDone {
            done: "a.fut".to_string(),
            error: None,
        });
        assert!(matches!(
            parse_line(&format!("trace: {{\"index\": 7{done}")),
            Some(Message::Done(_))
        ));
        assert!(matches!(
            parse_line(r#"{"done":"junk"{"index":0,"status":"passed"}"#),
            Some(Message::Report(ItemReport { index: 0, .. }))
        ));
        assert_eq!(parse_line("hello"), None);
        assert_eq!(parse_line(r#"{"index":"not a number"}"#), None);
    }
}
