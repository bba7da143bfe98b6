"""A deliberately broken driver for the tests of ``agui-fsm vectors run``: it replays each
scenario as ``agui-fsm replay`` does (the same profile) and changes the answer.

    perturbed_driver.py [--profile P] [--perturb ID] [--shuffle] [--decline FEATURE[:ID]]
                        [--raw] (PATH | --batch)

``--perturb ID`` appends "!" to the text of the last text part of vector ID's output (and
with ``--shuffle`` swaps its first two messages too, so it differs in many places);
``--decline FEATURE`` answers ``unsupported`` for every vector using FEATURE, or with
``:ID`` for that vector only, whatever it uses; ``--raw`` prints ``$n`` ids as made-up ones
(``gen-n``), which the runner must renumber.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agui_fsm.replay import replay_scenario
from agui_fsm.vectors.catalogue import scenario_features


def perturb(output: dict) -> None:
    for message in reversed(output["messages"]):
        for part in reversed(message["content"]):
            if part["type"] == "text":
                part["text"] += "!"
                return


def made_up_ids(value: object) -> object:
    if isinstance(value, str) and value.startswith("$"):
        return "gen-" + value[1:]
    if isinstance(value, dict):
        return {k: made_up_ids(v) for k, v in value.items()}
    if isinstance(value, list):
        return [made_up_ids(v) for v in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", nargs="?")
    parser.add_argument("--batch", action="store_true")
    parser.add_argument("--profile", default="spec")
    parser.add_argument("--perturb")
    parser.add_argument("--decline")
    parser.add_argument("--raw", action="store_true")
    parser.add_argument("--shuffle", action="store_true")
    args = parser.parse_args()
    paths = json.load(sys.stdin) if args.batch else [args.path]
    feature, _, only = (args.decline or "").partition(":")
    replies = []
    for path in paths:
        name, scenario = Path(path).stem, json.loads(Path(path).read_text())
        uses = scenario_features(scenario)
        if feature and ((only and name == only) or (not only and feature in uses)):
            replies.append({"unsupported": feature, "reason": "this port has none"})
            continue
        output = replay_scenario(scenario, profile=args.profile)
        if name == args.perturb:
            perturb(output)
            if args.shuffle:
                output["messages"][:2] = output["messages"][1::-1]
        replies.append(made_up_ids(output) if args.raw else output)
    print(json.dumps(replies if args.batch else replies[0]))


if __name__ == "__main__":
    main()
