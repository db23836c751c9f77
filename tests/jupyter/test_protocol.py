"""Behaviour beyond the conformance suite: streams, HTML tables, pictures, magics,
interrupting, restarting, and messages that must be rejected without killing the kernel."""

import base64
import hashlib
import hmac
import json
import time
import uuid

import pytest
from jupyter_client.manager import start_new_kernel

TIMEOUT = 30


@pytest.fixture
def kernel():
    km, kc = start_new_kernel(kernel_name="futhark")
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def run(kc, code, timeout=TIMEOUT):
    """Executes code; returns the reply and the IOPub messages of the request."""
    msg_id = kc.execute(code)
    reply = shell_reply(kc, msg_id, timeout)
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        outputs.append(msg)
    return reply, outputs


def shell_reply(kc, msg_id, timeout=TIMEOUT):
    """The shell reply to msg_id, skipping replies to earlier requests (kernel_info)."""
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def of_type(outputs, kind):
    return [m for m in outputs if m["msg_type"] == kind]


def test_declarations_persist_and_results_carry_type_time_and_device(kernel):
    _, kc = kernel
    reply, _ = run(kc, "def sq (x: i32) = x * x")
    assert reply["content"]["status"] == "ok"
    reply, out = run(kc, "map sq [1, 2, 3]")
    (res,) = of_type(out, "execute_result")
    assert res["content"]["data"]["text/plain"] == "[1, 4, 9]"
    meta = res["content"]["metadata"]["futhark"]
    assert meta["device"] == "interpreter"
    assert meta["shape"] == [3]
    assert "i32" in meta["type"]
    html = res["content"]["data"]["text/html"]
    assert "<table" in html and "[3]i32" in html and "interpreter" in html


def test_it_holds_the_last_value(kernel):
    _, kc = kernel
    run(kc, "iota 5")
    _, out = run(kc, "reduce (+) 0 it")
    (res,) = of_type(out, "execute_result")
    assert res["content"]["data"]["text/plain"] == "10"


def test_trace_goes_to_stdout(kernel):
    _, kc = kernel
    reply, out = run(kc, "#[trace] (20 + 22)")
    assert reply["content"]["status"] == "ok"
    streams = [m["content"]["text"] for m in of_type(out, "stream")
               if m["content"]["name"] == "stdout"]
    assert any("42" in s for s in streams), streams


def test_errors_render_diagnostics_and_keep_the_session(kernel):
    _, kc = kernel
    run(kc, "def keep = 3i32")
    reply, out = run(kc, "[1, 2][keep]")
    assert reply["content"]["status"] == "error"
    (err,) = of_type(out, "error")
    assert err["content"]["ename"] == "RuntimeError"
    assert any("out of bounds" in line for line in err["content"]["traceback"])
    _, out = run(kc, "keep")
    assert of_type(out, "execute_result")[0]["content"]["data"]["text/plain"] == "3"


def test_compiled_cells_check_bounds_and_keep_the_session(kernel):
    # The CPU executor runs the GPU path's kernels: an out-of-bounds index inside a kernel
    # is an error reply located in the cell, and the next cell answers.
    _, kc = kernel
    reply, _ = run(kc, "%backend cpu")
    assert reply["content"]["status"] == "ok"
    run(kc, "let xs = [1,2,3,4,5,6,7,8,9,10i32]")
    reply, out = run(kc, "map (\\j -> xs[j + 5]) (iota 10)")
    assert reply["content"]["status"] == "error"
    (err,) = of_type(out, "error")
    assert err["content"]["evalue"] == "Index [10] out of bounds for array of shape [10]."
    assert any(":1:12" in line for line in err["content"]["traceback"])
    reply, out = run(kc, "i64.sum (iota 10)")
    assert reply["content"]["status"] == "ok"
    (res,) = of_type(out, "execute_result")
    assert res["content"]["data"]["text/plain"] == "45"
    assert res["content"]["metadata"]["futhark"]["device"] != "interpreter"


def test_magics(kernel):
    _, kc = kernel
    run(kc, "1 + 1")
    for code, expected in [
        ("%type 1u8 + 2", "u8"),
        ("%kernels", "launches no kernels"),
        ("%ir", "kernels IR of `futhark_cell`"),
        ("%gpus", "GPUs visible: 0"),
        ("%backend interp", "backend: interp"),
        ("%time", "last cell"),
        ("%profile", "ran on the interpreter"),
        ("%mtype i32", "val"),
    ]:
        reply, out = run(kc, code)
        assert reply["content"]["status"] == "ok", (code, reply["content"])
        text = "".join(m["content"]["text"] for m in of_type(out, "stream"))
        assert expected in text, (code, text)


def test_load_a_file(kernel, tmp_path):
    _, kc = kernel
    src = tmp_path / "lib.fut"
    src.write_text("-- | Triples.\ndef triple (x: i64) = 3 * x\n")
    reply, _ = run(kc, f"%load {src}")
    assert reply["content"]["status"] == "ok"
    _, out = run(kc, "triple 5")
    assert of_type(out, "execute_result")[0]["content"]["data"]["text/plain"] == "15"
    reply = shell_reply(kc, kc.inspect("triple", 3))
    assert reply["content"]["found"]
    assert "Triples." in reply["content"]["data"]["text/plain"]


def test_img_is_a_png(kernel):
    _, kc = kernel
    reply, out = run(kc, "%img map (\\i -> map (\\j -> u32.i64 (i * 16 + j) * 1000) (iota 16)) (iota 8)")
    assert reply["content"]["status"] == "ok", reply["content"]
    (disp,) = of_type(out, "display_data")
    png = base64.b64decode(disp["content"]["data"]["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 16 and int.from_bytes(png[20:24], "big") == 8


def test_img_of_a_wrong_type_is_an_error(kernel):
    _, kc = kernel
    reply, out = run(kc, "%img [1, 2, 3]")
    assert reply["content"]["status"] == "error"
    assert "%img needs" in of_type(out, "error")[0]["content"]["evalue"]


def test_interrupt_stops_a_long_cell_and_keeps_the_session(kernel):
    km, kc = kernel
    run(kc, "def kept = 11i32")
    msg_id = kc.execute("loop acc = 0i64 for i < 4000000000i64 do (acc + i) % 7")
    time.sleep(1.0)
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "Interrupted"
    _, out = run(kc, "kept")
    assert of_type(out, "execute_result")[0]["content"]["data"]["text/plain"] == "11"


def test_restart_gives_a_fresh_session(kernel):
    km, kc = kernel
    run(kc, "def before = 1i32")
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=TIMEOUT)
    reply, out = run(kc, "before")
    assert reply["content"]["status"] == "error"


def raw_shell_send(kc, frames):
    """Sends raw frames on the shell socket, bypassing the client's signing."""
    sock = kc.shell_channel.socket
    sock.send_multipart(frames)


def test_unsigned_and_malformed_messages_are_rejected(kernel):
    km, kc = kernel
    header = json.dumps({
        "msg_id": uuid.uuid4().hex, "username": "x", "session": uuid.uuid4().hex,
        "date": "2024-01-01T00:00:00Z", "msg_type": "execute_request", "version": "5.3",
    }).encode()
    content = json.dumps({"code": "def evil = 1", "silent": False}).encode()
    # A wrong signature.
    raw_shell_send(kc, [b"<IDS|MSG>", b"0" * 64, header, b"{}", b"{}", content])
    # No signature at all.
    raw_shell_send(kc, [b"<IDS|MSG>", b"", header, b"{}", b"{}", content])
    # Not even a message.
    raw_shell_send(kc, [b"garbage"])
    # A correctly signed message whose JSON is broken.
    key = km.session.key
    bad = [b"{not json", b"{}", b"{}", b"{}"]
    sig = hmac.new(key, b"".join(bad), hashlib.sha256).hexdigest().encode()
    raw_shell_send(kc, [b"<IDS|MSG>", sig] + bad)
    time.sleep(0.5)
    # The kernel is alive and never ran the unsigned code.
    reply, out = run(kc, "evil")
    assert reply["content"]["status"] == "error"
    reply, out = run(kc, "1 + 1")
    assert of_type(out, "execute_result")[0]["content"]["data"]["text/plain"] == "2"
