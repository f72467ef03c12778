#!/usr/bin/env python3
"""Stored properties of classes whose setter is visible outside the class.

    tools/writable_properties.py Sources/Runtime Sources/Output

Lists each `var` declared in a class body (nested classes included) without `private` or
`private(set)`, skipping computed properties and static ones, and ends with the count
(exit 1 above 0): in Runtime and Output, as in the sensor service's parts, a class's state
is changed only by the class itself. A line-based reading of Swift, not a parser:
declarations are expected one to a line, as the sources write them."""
import pathlib
import re
import sys

DECLARATION = re.compile(
    r"^\s*((?:@\w+(?:\([^)]*\))?\s+)*)((?:(?:package|public|internal|private|fileprivate|open|final|static|class|lazy"
    r"|weak|unowned|nonisolated|override)(?:\(set\))?\s+)*)var\s+(\w+)")
TYPE = re.compile(r"\b(class|struct|enum|extension|protocol|actor)\s+\w+")


def writable_properties(path):
    found = []
    depth = 0
    scopes = []     # (kind, the depth of its body)
    pending = None
    for number, line in enumerate(path.read_text().split("\n"), 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', re.sub(r"//.*", "", line))
        m = TYPE.search(code)
        if m and not re.search(r"\bclass\s+(func|var|let)\b", code):
            pending = m.group(1)
        if scopes and scopes[-1][0] == "class" and depth == scopes[-1][1]:
            d = DECLARATION.match(code)
            if d and "static" not in d.group(2) and "class " not in d.group(2):
                rest = code[d.end():]
                computed = re.match(r"\s*:[^={]*\{", rest) is not None
                if not computed and not re.search(r"\bprivate\b(?!\(set\))|\bprivate\(set\)", d.group(2)):
                    found.append("%s:%d: %s" % (path, number, line.strip()))
        for ch in code:
            if ch == "{":
                depth += 1
                if pending:
                    scopes.append((pending, depth))
                    pending = None
            elif ch == "}":
                if scopes and scopes[-1][1] == depth:
                    scopes.pop()
                depth -= 1
    return found


def main():
    found = [f for root in sys.argv[1:] for p in sorted(pathlib.Path(root).rglob("*.swift"))
             for f in writable_properties(p)]
    print("\n".join(found + ["%d writable class properties outside their class in %s"
                             % (len(found), " and ".join(sys.argv[1:]))]))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
