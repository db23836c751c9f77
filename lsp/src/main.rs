//! `futhark-lsp`: the Futhark language server, speaking LSP over stdin/stdout.
//!
//! The analysis lives in `futhark-ide`; this crate converts between the protocol and the
//! analysis's byte offsets (`line_index.rs`, `uris.rs`), keeps the server state and
//! routes requests (`server.rs`), with one thin handler per request (`handlers/`). Running
//! `-- >>>` examples uses the REPL's session (`eval.rs`).

mod config;
mod edits;
mod eval;
mod handlers;
mod line_index;
mod server;
mod snapshot;
mod transport;
mod uris;

use tower_lsp_server::{LspService, Server};

/// Handlers and salsa queries run on these threads; deep (but parser-bounded) syntax
/// trees need more than the default stack.
const THREAD_STACK: usize = 16 << 20;

fn main() {
    let arg = std::env::args().nth(1);
    match arg.as_deref() {
        Some("--version" | "-V") => {
            println!("futhark-lsp {}", env!("CARGO_PKG_VERSION"));
            return;
        }
        Some("--help" | "-h") => {
            println!(
                "futhark-lsp {}: the Futhark language server.\n\
                 Speaks the Language Server Protocol on stdin/stdout; start it from an editor.",
                env!("CARGO_PKG_VERSION")
            );
            return;
        }
        _ => {}
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(THREAD_STACK)
        .enable_all()
        .build();
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("futhark-lsp: cannot start the async runtime: {e}");
            std::process::exit(1);
        }
    };
    runtime.block_on(async {
        let (service, socket) = LspService::build(server::Server::new)
            .custom_method("futhark/showIR", server::Server::show_ir)
            .custom_method("futhark/showCuda", server::Server::show_cuda)
            .finish();
        // The server talks to in-memory pipes; `transport` guards the real stdin/stdout.
        let (client_in, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_out) = tokio::io::duplex(1 << 16);
        let (frames, frames_rx) = tokio::sync::mpsc::unbounded_channel();
        let input = tokio::spawn(transport::guard_input(
            tokio::io::stdin(),
            client_in,
            frames.clone(),
        ));
        let output = tokio::spawn(transport::collect_output(client_out, frames));
        let writer = tokio::spawn(transport::write_output(tokio::io::stdout(), frames_rx));
        Server::new(server_in, server_out, socket)
            .serve(service)
            .await;
        input.abort();
        let _ = output.await;
        let _ = writer.await;
    });
    // The standard input reader may still be blocked in a read on another thread; do not
    // wait for it.
    runtime.shutdown_background();
    // `exit` (or the end of input) without `shutdown` first is an error exit.
    let clean = server::SHUTDOWN_REQUESTED.load(std::sync::atomic::Ordering::SeqCst);
    std::process::exit(if clean { 0 } else { 1 });
}
