"""Fuzz ``pbem verify``'s loader: any JSON document gets a report, never an exception."""

from __future__ import annotations

import json

from _harness import instrumented, run

with instrumented():
    from pbem.service.verify import verify_data


def test_one_input(data: bytes) -> None:
    try:
        document = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return
    report = verify_data(document)
    assert report.ok or report.problem


if __name__ == "__main__":
    run(test_one_input)
