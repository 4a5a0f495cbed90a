"""Prints README.md's table of observation fields (from clustersim.observation_fields()):
`python3 -m clustersim.docs`. tests/python/test_observation.py checks that README.md matches."""
from ._api import observation_fields


def observation_table() -> str:
    lines = ["| field | kind | dtype | meaning |", "| --- | --- | --- | --- |"]
    for name, kind, dtype, meaning in observation_fields():
        lines.append(f"| `{name}` | {kind} | `{dtype}` | {meaning} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(observation_table())
