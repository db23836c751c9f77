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


def test_stop_on_error_aborts_the_queued_cells(kernel):
    # "Run All": every cell is sent at once; after the failing one, the queued cells are
    # answered `aborted` (as IPython does), and a later cell runs again.
    _, kc = kernel
    ids = [kc.execute(code) for code in ["1 + true", "1 + 1", "2 + 2"]]
    replies = {}
    while len(replies) < len(ids):
        r = kc.get_shell_msg(timeout=TIMEOUT)
        if r["parent_header"].get("msg_id") in ids:
            replies[r["parent_header"]["msg_id"]] = r["content"]["status"]
    assert [replies[i] for i in ids] == ["error", "aborted", "aborted"]
    reply, out = run(kc, "3 + 3")
    assert reply["content"]["status"] == "ok"
    assert of_type(out, "execute_result")[0]["content"]["data"]["text/plain"] == "6"


def test_without_stop_on_error_the_queued_cells_run(kernel):
    _, kc = kernel
    ids = [kc.execute(code, stop_on_error=False) for code in ["1 + true", "1 + 1"]]
    replies = {}
    while len(replies) < len(ids):
        r = kc.get_shell_msg(timeout=TIMEOUT)
        if r["parent_header"].get("msg_id") in ids:
            replies[r["parent_header"]["msg_id"]] = r["content"]["status"]
    assert [replies[i] for i in ids] == ["error", "ok"]


def test_history_search_with_the_clients_defaults(kernel):
    # jupyter_client sends a search without `unique` and `n`.
    _, kc = kernel
    run(kc, "1 + 2")
    msg_id = kc.history(hist_access_type="search", pattern="1*")
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "ok"
    assert [h[2] for h in reply["content"]["history"]] == ["1 + 2"]


def test_cells_are_numbered_as_the_notebook_numbers_them(kernel):
    _, kc = kernel
    run(kc, "%help")  # In[1]: a magic only
    reply, out = run(kc, "1 / 0i32")  # In[2]
    assert reply["content"]["execution_count"] == 2
    (err,) = of_type(out, "error")
    assert any("[2]:1:1" in line for line in err["content"]["traceback"]), err
    run(kc, "1 + 1")  # In[3]
    run(kc, "2 + 2")  # In[4]
    reply, out = run(kc, "%compare 3 4")
    assert reply["content"]["status"] == "ok", reply["content"]
    text = "".join(m["content"]["text"] for m in of_type(out, "stream"))
    assert "[3] on the interpreter" in text and "[4] on the interpreter" in text, text
    assert "no GPU ran" in text, text
    _, out = run(kc, "%profile")
    text = "".join(m["content"]["text"] for m in of_type(out, "stream"))
    assert text.startswith("cell [4]"), text


def test_type_errors_are_printed_once(kernel):
    _, kc = kernel
    _, out = run(kc, "1 + true")
    (err,) = of_type(out, "error")
    text = "\n".join(err["content"]["traceback"])
    assert text.count("Actual:") == 1, text


def test_notes_are_plain_stdout(kernel):
    _, kc = kernel
    for code in ["%gpus", "%backend cuda", "%backend interp"]:
        reply, out = run(kc, code)
        assert reply["content"]["status"] == "ok"
        names = {m["content"]["name"] for m in of_type(out, "stream")}
        assert names == {"stdout"}, (code, out)
        assert not of_type(out, "error")


def test_one_caption_and_no_suffixes_in_tables(kernel):
    _, kc = kernel
    _, out = run(kc, "[1.5f32, 2, -1]")
    (res,) = of_type(out, "execute_result")
    html = res["content"]["data"]["text/html"]
    assert html.count("[3]f32") == 1, html
    table = html.split("</table>")[0]
    assert ">1.5<" in table and ">-1.0<" in table and "f32" not in table, html
    _, out = run(kc, "7i32")
    (res,) = of_type(out, "execute_result")
    assert res["content"]["data"]["text/html"].count("i32") == 1


def test_magic_errors_speak_magics(kernel):
    _, kc = kernel
    reply, out = run(kc, "%type")
    assert reply["content"]["status"] == "error"
    (err,) = of_type(out, "error")
    assert err["content"]["evalue"] == "%type needs an expression"


def test_declarations_then_an_expression_in_one_cell(kernel):
    _, kc = kernel
    reply, out = run(kc, "def sq (x: i32) = x * x\nsq 3")
    assert reply["content"]["status"] == "ok", out
    (res,) = of_type(out, "execute_result")
    assert res["content"]["data"]["text/plain"] == "9"
    _, out = run(kc, "sq 4")
    assert of_type(out, "execute_result")[0]["content"]["data"]["text/plain"] == "16"


def test_type_of_a_size_generic_function(kernel):
    _, kc = kernel
    _, out = run(kc, "%type map (+1)")
    text = "".join(m["content"]["text"] for m in of_type(out, "stream"))
    assert "[n]i32 -> *[n]i32" in text, text


def test_kernels_on_the_interpreter_say_no_gpu_runs(kernel):
    _, kc = kernel
    run(kc, "1 + 1")
    _, out = run(kc, "%kernels")
    text = "".join(m["content"]["text"] for m in of_type(out, "stream"))
    assert text.startswith("cells run on the interpreter: no GPU runs"), text


def test_the_kernelspec_has_logos():
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("futhark")
    import pathlib

    for size in (32, 64):
        data = (pathlib.Path(spec.resource_dir) / f"logo-{size}x{size}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(data[16:20], "big") == size


def test_plots_are_pngs_of_the_plot_size(kernel):
    _, kc = kernel
    _, out = run(kc, "%plot2d map (\\i -> f64.i64 i ** 2) (iota 20)")
    (pic,) = of_type(out, "display_data")
    png = base64.b64decode(pic["content"]["data"]["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (640, 400)
