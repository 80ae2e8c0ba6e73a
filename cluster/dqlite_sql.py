#!/usr/bin/python3
"""dqlite_sql.py — a script for the sqlite3 CLI as one command for the dqlite shell.

    dqlite -s 127.0.0.1:9001 runs "$(python3 cluster/dqlite_sql.py sql/schema.sql)"

The dqlite shell (Debian's go-dqlite) runs the command given after the database
name by splitting it at every ';' and running each piece in its own transaction:
a piece that starts with SELECT as a query (its rows printed as a|b|c), any other
as a statement. So a script goes through as it is only if no comment, string or
trigger body in it holds a ';' and every query begins its piece. This prints the
script's statements with the comments taken out, each starting its piece, joined
by '; ' (statement ends are found as SQLite finds them, sqlite3_complete).

Dot-commands that only shape the CLI's output or its reaction to errors (.bail,
.headers, .mode, .print, .once, ...) are left out: the dqlite shell stops at the
first error anyway and has one output format, on standard output. Any other
dot-command (.load, .read, .parameter, ...) changes what the script does: it is
an error. A string with a ';' is written as an expression without one,
('a' || char(59) || 'b'); a ';' in a quoted name or a trigger body, which the
shell would cut in two, is an error.

BEGIN, COMMIT and END cannot go through: the shell already runs each piece in a
transaction, where they fail. They are an error unless --drop-transactions is
given; then they are left out, and the statements between them are applied one
by one, each in its own transaction (a script that stops midway keeps what it
did so far). ROLLBACK, SAVEPOINT and RELEASE are always an error.

Errors name the file and line and exit with status 1.
"""
import sqlite3
import sys
import urllib.parse

USAGE = """usage: dqlite_sql.py [--drop-transactions] SCRIPT.sql ...
                      the script as one command for the dqlite shell (- reads stdin)
       dqlite_sql.py --copy DB TABLE ...
                      every row of the tables of a local SQLite database as INSERT
                      commands for the dqlite shell, one a line"""

# Dot-commands with no effect on the database: safe to drop.
OUTPUT_ONLY = {".bail", ".changes", ".echo", ".headers", ".mode", ".nullvalue",
               ".once", ".output", ".print", ".separator", ".timer", ".width"}
# Transaction control, which the shell's own transaction around each piece
# rules out: dropped with --drop-transactions, or never possible.
DROPPABLE = {"BEGIN", "COMMIT", "END"}
IMPOSSIBLE = {"ROLLBACK", "SAVEPOINT", "RELEASE"}

# One argument of a command line: Linux takes at most 128 KiB (with its NUL).
MAX_ARG = 131072 - 1


class ScriptError(Exception):
    pass


def statements(text, name, drop_transactions=False):
    """The complete statements of a sqlite3 CLI script, comments removed."""
    out = []
    stmt = []          # the current statement's text, comments left out
    raw = []           # the same with comments, for sqlite3.complete_statement
    line = 1
    start_line = 1
    i, n = 0, len(text)

    def blank():
        return not "".join(stmt).strip()

    while i < n:
        c = text[i]
        at_line_start = i == 0 or text[i - 1] == "\n"
        if at_line_start and blank() and text[i:].lstrip(" \t").startswith("."):
            end = text.find("\n", i)
            end = n if end < 0 else end
            command = text[i:end].split()[0]
            if command not in OUTPUT_ONLY:
                raise ScriptError(f"{name}:{line}: {command}: a sqlite3 CLI dot-command "
                                  "that the dqlite shell cannot run")
            i = end
            continue
        if c == "\n":
            line += 1
        if blank() and not c.isspace():
            start_line = line
        if text.startswith("--", i):
            while stmt and stmt[-1] in " \t":
                stmt.pop()
            end = text.find("\n", i)
            end = n if end < 0 else end
            raw.append(text[i:end])
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            stmt.append(" ")
            raw.append(text[i:end])
            i = end
            continue
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = i + 1
            while True:
                j = text.find(close, j)
                if j < 0:
                    raise ScriptError(f"{name}:{line}: unterminated {c}")
                if close != "]" and text.startswith(close * 2, j):
                    j += 2          # a doubled quote stands for itself
                    continue
                break
            quoted = text[i:j + 1]
            line += quoted.count("\n")
            if ";" in quoted and c != "'":
                raise ScriptError(f"{name}:{line}: a ';' inside the name {quoted[:40]}: "
                                  "the dqlite shell would cut the statement there")
            stmt.append(without_semicolons(quoted))
            raw.append(quoted)
            i = j + 1
            continue
        stmt.append(c)
        raw.append(c)
        i += 1
        if c == ";" and sqlite3.complete_statement("".join(raw)):
            body = "".join(stmt)[:-1].strip()
            if ";" in body:
                raise ScriptError(f"{name}:{start_line}: a statement with a ';' of its own "
                                  "(a trigger body): the dqlite shell would cut it there")
            if body and keep(body, f"{name}:{start_line}", drop_transactions):
                out.append(body)
            stmt, raw = [], []
    if not blank():     # a last statement without ';', as the sqlite3 CLI allows
        if not sqlite3.complete_statement("".join(raw) + "\n;"):
            raise ScriptError(f"{name}:{start_line}: incomplete statement at the end")
        body = "".join(stmt).strip()
        if keep(body, f"{name}:{start_line}", drop_transactions):
            out.append(body)
    return out


def without_semicolons(quoted):
    """A string literal with a ';' as an expression without one:
    'a;b' -> ('a' || char(59) || 'b'). Valid wherever an expression is (a
    column DEFAULT included), the same text; a literal used as a name is not
    an expression, and SQLite then reports a syntax error."""
    if not quoted.startswith("'") or ";" not in quoted:
        return quoted
    parts = quoted[1:-1].split(";")     # a doubled '' never holds a ';'
    return "(" + " || char(59) || ".join(f"'{p}'" for p in parts) + ")"


def keep(body, where, drop_transactions):
    """False for a transaction statement to leave out; raises for one that
    cannot go through the shell."""
    verb = body.split(None, 1)[0].upper()
    if verb in IMPOSSIBLE or verb in DROPPABLE and not drop_transactions:
        hint = " (--drop-transactions runs the statements one by one)" \
            if verb in DROPPABLE else ""
        raise ScriptError(f"{where}: {verb}: the dqlite shell runs each statement in a "
                          f"transaction of its own{hint}")
    return verb not in DROPPABLE


def sql_ident(name):
    return '"' + name.replace('"', '""') + '"'


def copy_commands(path, tables):
    """INSERT commands for every row of tables of a local SQLite database,
    each at most MAX_ARG bytes. A row whose key is there already is updated in
    place (an upsert, not INSERT OR REPLACE, whose delete would cascade to the
    rows that refer to it). Text goes as CAST(X'hex' AS TEXT), so no ';' or
    newline reaches the shell and the bytes arrive as they are; reals as
    quote() writes them, which reads back as the same double."""
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ScriptError(f"{path}: {e}") from None
    try:
        for table in tables:
            cols = [r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (table,))]
            if not cols:
                raise ScriptError(f"{path}: no table {table!r}")
            literal = ("CASE typeof({0}) WHEN 'text' THEN 'CAST(X''' || hex({0}) || ''' AS TEXT)'"
                       " ELSE quote({0}) END")
            values = " || ', ' || ".join(literal.format(sql_ident(c)) for c in cols)
            head = (f"INSERT INTO {sql_ident(table)} "
                    f"({', '.join(sql_ident(c) for c in cols)}) VALUES ")
            tail = " ON CONFLICT DO UPDATE SET " + ", ".join(
                f"{sql_ident(c)} = excluded.{sql_ident(c)}" for c in cols)
            room = MAX_ARG - len(tail)
            batch = ""
            for (row,) in db.execute(f"SELECT {values} FROM {sql_ident(table)}"):
                row = f"({row})"
                if batch and len(batch) + 2 + len(row) > room:
                    yield batch + tail
                    batch = ""
                batch = batch + ", " + row if batch else head + row
                if len(batch) > room:
                    raise ScriptError(f"{path}: a row of {table} is longer than one "
                                      f"command-line argument can hold ({MAX_ARG} bytes)")
            if batch:
                yield batch + tail
    except sqlite3.Error as e:
        raise ScriptError(f"{path}: {e}") from None
    finally:
        db.close()


def script_command(paths, drop_transactions):
    parts = []
    for path in paths:
        if path == "-":
            parts += statements(sys.stdin.read(), "<stdin>", drop_transactions)
        else:
            with open(path, encoding="utf-8") as f:
                parts += statements(f.read(), path, drop_transactions)
    command = "; ".join(parts)
    if len(command.encode()) > MAX_ARG:
        raise ScriptError(f"{len(command.encode())} bytes, more than one command-line "
                          f"argument can hold ({MAX_ARG}): split the script")
    return [command]


def main(argv):
    if (len(argv) < 2 or argv[1] in ("-h", "--help")
            or argv[1] == "--copy" and len(argv) < 4
            or argv[1] == "--drop-transactions" and len(argv) < 3):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        if argv[1] == "--copy":
            commands = list(copy_commands(argv[2], argv[3:]))
        elif argv[1] == "--drop-transactions":
            commands = script_command(argv[2:], True)
        else:
            commands = script_command(argv[1:], False)
    except (OSError, ScriptError) as e:
        print(f"dqlite_sql.py: {e}", file=sys.stderr)
        return 1
    for command in commands:
        print(command)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
