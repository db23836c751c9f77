"""The protocol conformance suite of jupyter_kernel_test, with Futhark samples for every
optional test it offers."""

import unittest

import jupyter_kernel_test as jkt


class FutharkKernelTests(jkt.KernelTests):
    kernel_name = "futhark"
    language_name = "futhark"
    file_extension = ".fut"

    # code_hello_world stays empty: Futhark has no way to print text. `#[trace]` output is
    # the kernel's stdout stream (tested in test_protocol.py), but it prints values in
    # Futhark syntax, and a string is an array of bytes there.

    # The checker's warnings go to stderr (notes and command output go to stdout).
    code_stderr = "[1, 2] == [1, 2]"

    completion_samples = [
        {"text": "f32.sq", "matches": {"sqrt"}},
        {"text": "%pro", "matches": {"profile"}},
        {"text": "reduce_c", "matches": {"reduce_comm"}},
    ]

    complete_code_samples = ["1 + 2", "def f (x: i32) = x + 1", "%help", ""]
    incomplete_code_samples = ["map (\\x -> x + 1", "def f (x: i32) =", "let y = 1 in"]
    invalid_code_samples = ["1 + 2)", "def = = 3"]

    code_page_something = "%doc map"

    code_generate_error = "1 + true"

    code_execute_result = [
        {"code": "1 + 2", "result": "3"},
        {"code": "[1f32, 2.5f32]", "result": "[1.0f32, 2.5f32]"},
        {"code": "iota 3", "mime": "text/html"},
    ]

    code_display_data = [
        {"code": "%img map (\\i -> map (\\j -> f32.i64 (i + j) / 10f32) (iota 8)) (iota 8)",
         "mime": "image/png"},
        {"code": "%plot2d map (\\i -> f64.i64 i ** 2) (iota 20)", "mime": "image/png"},
    ]

    # A search without `unique` or `n` (as this suite and Jupyter's own client send it)
    # is answered with the specification's defaults (the kernel's wire.rs).
    supported_history_operations = ("tail", "range", "search")
    code_history_pattern = "1 + 2"

    code_inspect_sample = "map"


if __name__ == "__main__":
    unittest.main()
