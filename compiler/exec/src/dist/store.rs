//! The rendezvous store: a small key–value store that rank 0 serves on
//! `MASTER_ADDR:MASTER_PORT` (as torchrun's `TCPStore`). Ranks use it to find each other and
//! to exchange what must be agreed before devices talk: the NCCL unique id, the inputs rank 0
//! read. The test communicator ([`super::store_comm`]) also sends its transfers through it.
//!
//! The protocol: a request is an operation byte, a key (`u32` length, bytes) and for `SET` a
//! value (`u64` length, bytes); `GET` waits until the key is set and answers its value,
//! `TAKE` also removes it. An answer is a status byte (0: done, 1: timed out) and, for `GET`
//! and `TAKE`, the value. Every wait (connecting, a key, a reply) ends after the launch's
//! timeout with an error naming the store's address.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use futhark_options::Launch;

use crate::error::{ExecError, Result};

const SET: u8 = 1;
const GET: u8 = 2;
const TAKE: u8 = 3;

/// The values, and a condition variable woken at every `SET`.
type Shared = Arc<(Mutex<HashMap<String, Vec<u8>>>, Condvar)>;

/// A connection to the rendezvous store (rank 0 also serves it).
pub struct Store {
    conn: Mutex<TcpStream>,
    /// `host:port`, for messages.
    addr: String,
    timeout: Duration,
}

fn err(addr: &str, what: impl std::fmt::Display) -> ExecError {
    ExecError::Distributed(format!("rendezvous store at {addr}: {what}"))
}

impl Store {
    /// Joins the store of `launch`: rank 0 starts serving it, then every rank connects,
    /// retrying until the timeout (the other ranks may start before rank 0 listens).
    pub fn join(launch: &Launch) -> Result<Store> {
        let addr = format!("{}:{}", launch.master_addr, launch.master_port);
        if launch.rank == 0 {
            let listener = TcpListener::bind(("0.0.0.0", launch.master_port)).map_err(|e| {
                err(
                    &addr,
                    format!("rank 0 cannot listen on port {}: {e}", launch.master_port),
                )
            })?;
            serve(listener, launch.timeout);
        }
        let deadline = Instant::now() + launch.timeout;
        let conn = loop {
            let attempt = addr
                .to_socket_addrs()
                .map_err(|e| err(&addr, format!("cannot resolve the address: {e}")))?
                .find_map(|a| TcpStream::connect_timeout(&a, Duration::from_secs(2)).ok());
            if let Some(c) = attempt {
                break c;
            }
            if Instant::now() >= deadline {
                return Err(err(
                    &addr,
                    format!(
                        "rank {} could not connect within {} s (is rank 0 running, and MASTER_ADDR/MASTER_PORT the same for every rank?)",
                        launch.rank,
                        launch.timeout.as_secs()
                    ),
                ));
            }
            thread::sleep(Duration::from_millis(50));
        };
        let _ = conn.set_nodelay(true);
        // A reply comes at most `timeout` after the request (the server's own wait), plus
        // the time to send the value.
        conn.set_read_timeout(Some(launch.timeout + Duration::from_secs(30)))
            .map_err(|e| err(&addr, e))?;
        conn.set_write_timeout(Some(launch.timeout))
            .map_err(|e| err(&addr, e))?;
        Ok(Store {
            conn: Mutex::new(conn),
            addr,
            timeout: launch.timeout,
        })
    }

    /// The store's `host:port`.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Sets `key` to `value` (replacing an earlier value).
    pub fn set(&self, key: &str, value: &[u8]) -> Result<()> {
        self.request(SET, key, Some(value)).map(|_| ())
    }

    /// The value of `key`, waiting until some rank sets it.
    pub fn get(&self, key: &str) -> Result<Vec<u8>> {
        self.request(GET, key, None)
    }

    /// The value of `key`, waiting until some rank sets it, and removed from the store.
    pub fn take(&self, key: &str) -> Result<Vec<u8>> {
        self.request(TAKE, key, None)
    }

    fn request(&self, op: u8, key: &str, value: Option<&[u8]>) -> Result<Vec<u8>> {
        let mut conn = self
            .conn
            .lock()
            .map_err(|_| err(&self.addr, "a thread failed while using the connection"))?;
        let io = |e: std::io::Error| {
            let what = match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                    format!("no answer for `{key}` within {} s", self.timeout.as_secs())
                }
                _ => format!("lost the connection ({e}); did another rank fail?"),
            };
            err(&self.addr, what)
        };
        let mut msg = Vec::with_capacity(13 + key.len() + value.map_or(0, <[u8]>::len));
        msg.push(op);
        msg.extend((key.len() as u32).to_le_bytes());
        msg.extend(key.as_bytes());
        if let Some(v) = value {
            msg.extend((v.len() as u64).to_le_bytes());
            msg.extend(v);
        }
        conn.write_all(&msg).map_err(io)?;
        let mut status = [0u8];
        conn.read_exact(&mut status).map_err(io)?;
        if status[0] != 0 {
            return Err(err(
                &self.addr,
                format!(
                    "no rank set `{key}` within {} s (did another rank fail or not start?)",
                    self.timeout.as_secs()
                ),
            ));
        }
        if op == SET {
            return Ok(Vec::new());
        }
        read_value(&mut *conn).map_err(io)
    }
}

fn read_value(r: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    r.read_exact(&mut len)?;
    let mut v = vec![0u8; u64::from_le_bytes(len) as usize];
    r.read_exact(&mut v)?;
    Ok(v)
}

/// Serves the store on `listener` from background threads, one per connection, for the
/// rest of the process.
fn serve(listener: TcpListener, timeout: Duration) {
    let shared: Shared = Arc::new((Mutex::new(HashMap::new()), Condvar::new()));
    thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let shared = shared.clone();
            thread::spawn(move || {
                let _ = conn.set_nodelay(true);
                // A connection ends when its rank goes (a read error), never on a timeout:
                // ranks may compute for long between requests.
                let _ = handle(conn, &shared, timeout);
            });
        }
    });
}

fn handle(mut conn: TcpStream, shared: &Shared, timeout: Duration) -> std::io::Result<()> {
    loop {
        let mut op = [0u8];
        conn.read_exact(&mut op)?;
        let mut klen = [0u8; 4];
        conn.read_exact(&mut klen)?;
        let mut key = vec![0u8; u32::from_le_bytes(klen) as usize];
        conn.read_exact(&mut key)?;
        let key = String::from_utf8_lossy(&key).into_owned();
        let (map, cond) = &**shared;
        match op[0] {
            SET => {
                let value = read_value(&mut conn)?;
                map.lock().map_err(poisoned)?.insert(key, value);
                cond.notify_all();
                conn.write_all(&[0])?;
            }
            GET | TAKE => {
                let deadline = Instant::now() + timeout;
                let mut values = map.lock().map_err(poisoned)?;
                let found = loop {
                    let present = if op[0] == TAKE {
                        values.remove(&key)
                    } else {
                        values.get(&key).cloned()
                    };
                    if present.is_some() {
                        break present;
                    }
                    let now = Instant::now();
                    if now >= deadline {
                        break None;
                    }
                    values = cond
                        .wait_timeout(values, deadline - now)
                        .map_err(poisoned)?
                        .0;
                };
                drop(values);
                match found {
                    Some(v) => {
                        let mut msg = Vec::with_capacity(9 + v.len());
                        msg.push(0);
                        msg.extend((v.len() as u64).to_le_bytes());
                        msg.extend(v);
                        conn.write_all(&msg)?;
                    }
                    None => conn.write_all(&[1])?,
                }
            }
            _ => return Err(std::io::Error::other("unknown store operation")),
        }
    }
}

fn poisoned<T>(_: T) -> std::io::Error {
    std::io::Error::other("store state poisoned")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(rank: usize, port: u16, timeout_ms: u64) -> Launch {
        Launch {
            rank,
            world: 2,
            local_rank: 0,
            launcher: "test",
            master_addr: "127.0.0.1".into(),
            master_port: port,
            timeout: Duration::from_millis(timeout_ms),
        }
    }

    fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[test]
    fn values_cross_between_ranks_and_take_removes_them() {
        let port = free_port();
        let s0 = Store::join(&launch(0, port, 2000)).unwrap();
        let t = thread::spawn(move || {
            let s1 = Store::join(&launch(1, port, 2000)).unwrap();
            s1.set("a", b"from one").unwrap();
            s1.take("b").unwrap()
        });
        assert_eq!(s0.get("a").unwrap(), b"from one");
        assert_eq!(s0.get("a").unwrap(), b"from one", "GET keeps the value");
        s0.set("b", &[7; 100_000]).unwrap();
        assert_eq!(t.join().unwrap(), vec![7; 100_000]);
        let e = s0.take("b").unwrap_err().to_string();
        assert!(
            e.contains("`b`") && e.contains(&format!("127.0.0.1:{port}")),
            "{e}"
        );
    }

    #[test]
    fn a_missing_rank_zero_is_a_timeout_naming_the_address() {
        let port = free_port();
        let t0 = Instant::now();
        let e = Store::join(&launch(1, port, 300))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains(&format!("127.0.0.1:{port}")) && e.contains("could not connect"),
            "{e}"
        );
        assert!(t0.elapsed() < Duration::from_secs(10));
    }
}
