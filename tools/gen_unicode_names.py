#!/usr/bin/python3
"""gen_unicode_names.py — writes ext/ifs_unicode_names_table.h from CPython 3.11.

re's \\N{NAME} is unicodedata.lookup(NAME), which must give one character.
lookup knows four kinds of names, all read here from the running Python:

  * the names of the name table (unicodedata.name of every code point that
    is neither a Hangul syllable nor a CJK unified ideograph), compared in
    any ASCII letter case;
  * the aliases of NameAliases.txt (NBSP, LINE FEED, ZWNJ, ...), stored by
    CPython at private-use code points U+F0000.. and read back through
    unicodedata's own name C API (_ucnhash_CAPI, with ctypes);
  * two families built by rule and matched with exact case: HANGUL SYLLABLE
    followed by the short names of a leading consonant, a vowel and a final
    (the three short-name lists are read back from the syllables' names),
    and CJK UNIFIED IDEOGRAPH- followed by 4 or 5 uppercase hex digits of a
    code point in the unified-ideograph ranges (read from the names);
  * named sequences (several characters), which re rejects like an unknown
    name: they are left out (and checked not to collide).

Table names that are a prefix plus the code point in hex (CJK COMPATIBILITY
IDEOGRAPH-F900, KHITAN SMALL SCRIPT CHARACTER-18B00, NUSHU CHARACTER-1B170)
are kept as prefix + code-point ranges instead of words.  The remaining
names are split into words at spaces; the words form a sorted, front-coded
lexicon and each name is a sequence of word numbers; names are sorted by
those sequences and front-coded by words, in blocks with a full first name
for binary search (the layout is described in ext/ifs_unicode_names.c).

The script checks its own encoding by decoding it back, and checks every
rule it relies on against unicodedata.lookup.  Run by hand:
    /usr/bin/python3 tools/gen_unicode_names.py > ext/ifs_unicode_names_table.h
(tests/check_tables.py checks that the committed header is what it prints).
"""
import collections
import ctypes
import sys
import unicodedata

assert sys.version_info[:2] == (3, 11), "generate with Python 3.11"

MAXCP = 0x110000
HANGUL = "HANGUL SYLLABLE "
CJK = "CJK UNIFIED IDEOGRAPH-"
SBASE, LCOUNT, VCOUNT, TCOUNT = 0xAC00, 19, 21, 28
HEX_FAMILIES = ("CJK COMPATIBILITY IDEOGRAPH-", "KHITAN SMALL SCRIPT CHARACTER-",
                "NUSHU CHARACTER-")
LEX_BLOCK = 16        # words per lexicon block
NAME_BLOCK = 32       # names per name block
NFREQ = 128           # words written as one byte
MAX_WORDS = 15        # words in a name (a record header holds two nibbles)
WORD_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def check(cond, what):
    if not cond:
        sys.exit("gen_unicode_names: assumption failed: " + what)


def pua_names():
    """Aliases {name: code point} and named-sequence names, from the
    private-use code points where CPython keeps them (unicodedata's C API
    names them when asked with with_alias_and_seq)."""
    getname_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint32, ctypes.c_char_p,
                                 ctypes.c_int, ctypes.c_int)
    getcode_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_uint32), ctypes.c_int)

    class Capi(ctypes.Structure):
        _fields_ = [("getname", getname_t), ("getcode", getcode_t)]

    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    capi = Capi.from_address(get(unicodedata._ucnhash_CAPI,
                                 b"unicodedata._ucnhash_CAPI"))
    buf = ctypes.create_string_buffer(512)
    aliases, sequences = {}, []
    for cp in range(0xF0000, 0xF1000):
        if not capi.getname(cp, buf, 256, 1):
            continue
        name = buf.value.decode("ascii")
        value = unicodedata.lookup(name)
        if len(value) == 1:
            aliases[name] = ord(value)
        else:
            sequences.append(name)
    check(len(aliases) > 400 and len(sequences) > 400, "aliases and named sequences found")
    return aliases, sequences


def jamo():
    """The short names of leading consonants, vowels and finals, as the
    syllables' names spell them (leading IEUNG and no final are empty)."""
    def sname(cp):
        return unicodedata.name(chr(cp))[len(HANGUL):]
    ieung = 11
    lead = [sname(SBASE + l * VCOUNT * TCOUNT)[:-1] for l in range(LCOUNT)]
    vowel = [sname(SBASE + (ieung * VCOUNT + v) * TCOUNT) for v in range(VCOUNT)]
    final = [sname(SBASE + ieung * VCOUNT * TCOUNT + t)[1:] for t in range(TCOUNT)]
    check(lead[ieung] == "" and final[0] == "" and vowel[0] == "A", "jamo names")
    for s in range(LCOUNT * VCOUNT * TCOUNT):
        l, v, t = s // (VCOUNT * TCOUNT), s // TCOUNT % VCOUNT, s % TCOUNT
        check(unicodedata.name(chr(SBASE + s)) == HANGUL + lead[l] + vowel[v] + final[t],
              "syllable name %X" % (SBASE + s))
    return lead, vowel, final


def ranges(cps):
    out = []
    for c in sorted(cps):
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


def classify():
    """Splits the named code points into the rule-built ones and the table."""
    cjk, families, table = [], collections.defaultdict(list), {}
    for cp in range(MAXCP):
        name = unicodedata.name(chr(cp), None)
        if name is None:
            continue
        check(name.isascii() and name == name.upper(), "names are uppercase ASCII")
        if SBASE <= cp < SBASE + LCOUNT * VCOUNT * TCOUNT:
            continue                      # checked by jamo()
        check(not name.startswith(HANGUL), "no other name starts like a syllable")
        if name.startswith(CJK):
            check(name == CJK + "%X" % cp, "unified ideograph name %X" % cp)
            cjk.append(cp)
            continue
        fam = [f for f in HEX_FAMILIES if name.startswith(f)]
        if fam and name == fam[0] + "%X" % cp:
            families[fam[0]].append(cp)
            continue
        check(not fam, "family prefix used by another name: " + name)
        table[name] = cp
    return ranges(cjk), {f: ranges(families[f]) for f in HEX_FAMILIES}, table


def check_names(table, aliases, sequences):
    upper = collections.Counter(n.upper() for n in list(table) + list(aliases) + sequences)
    check(max(upper.values()) == 1, "names are unique in any case")
    for name in table.keys() | aliases.keys():
        check(set(name) <= WORD_CHARS | {" "}, "name characters: " + name)
        check("" not in name.split(" "), "no empty word: " + name)
        check(not name.startswith((HANGUL, CJK)) and not name.startswith(HEX_FAMILIES),
              "table name with a rule's prefix: " + name)
    for name, cp in list(table.items()) + list(aliases.items()):
        check(unicodedata.lookup(name) == chr(cp), "lookup " + name)
        check(unicodedata.lookup(name.lower()) == chr(cp), "lookup in lowercase " + name)


def check_rules(cjk, families):
    """The exact-case rules and the any-case families, against lookup."""
    def finds(name):
        try:
            return unicodedata.lookup(name)
        except KeyError:
            return None
    check(finds(CJK.lower() + "4E00") is None and finds(CJK + "4e00") is None,
          "unified ideographs: exact case")
    check(finds(CJK + "04E00") == "\u4e00" and finds(CJK + "4E00") == "\u4e00",
          "unified ideographs: 4 or 5 digits")
    check(finds(HANGUL.lower() + "GA") is None and finds(HANGUL + "ga") is None,
          "syllables: exact case")
    for fam, rs in families.items():
        lo = rs[0][0]
        check(finds((fam + "%X" % lo).lower()) == chr(lo), "family in any case")
        check(finds(fam + "0%X" % lo) is None, "family: no leading zero")
    for lo, hi in cjk:
        check(finds(CJK + "%X" % (hi + 1)) is None, "end of a unified range")


def word_ids(names):
    words = sorted({w for n in names for w in n.split(" ")})
    return words, {w: i for i, w in enumerate(words)}


def encode_lexicon(words):
    """Front-coded words: each entry is a letter 'a'+k (k characters shared
    with the previous word, 0 at a block start) and the rest of the word."""
    text, starts, prev = [], [], ""
    for i, w in enumerate(words):
        if i % LEX_BLOCK == 0:
            starts.append(sum(len(t) for t in text))
            prev = ""
        k = 0
        while k < min(len(w), len(prev)) and w[k] == prev[k]:
            k += 1
        check(k <= 25 and k < len(w), "lexicon prefix fits a letter")
        text.append(chr(ord("a") + k) + w[k:])
        prev = w
    return "".join(text), starts


def zigzag(d):
    return d * 2 if d >= 0 else -d * 2 - 1


def encode_names(records, freq_index):
    """records: sorted (word-number tuple, code point).  Each name: a byte
    (shared words << 4 | new words), the new words (one byte below 0x80 for
    a frequent word, else 0x80 | high 7 bits, low 8 bits), then the code
    point: 3 bytes at a block start, else the zigzag LEB128 difference from
    the previous name's."""
    out, starts, prev, prev_cp = bytearray(), [], (), 0
    for i, (ids, cp) in enumerate(records):
        if i % NAME_BLOCK == 0:
            starts.append(len(out))
            prev = ()
        k = 0
        while k < min(len(ids), len(prev)) and ids[k] == prev[k]:
            k += 1
        new = ids[k:]
        check(len(ids) <= MAX_WORDS and len(new) > 0, "name record header")
        out.append(k << 4 | len(new))
        for w in new:
            if w in freq_index:
                out.append(freq_index[w])
            else:
                check(w < 0x8000, "word number fits 15 bits")
                out += bytes([0x80 | w >> 8, w & 0xFF])
        if i % NAME_BLOCK == 0:
            out += cp.to_bytes(3, "big")
        else:
            z = zigzag(cp - prev_cp)
            while z >= 0x80:
                out.append(0x80 | (z & 0x7F))
                z >>= 7
            out.append(z)
        prev, prev_cp = ids, cp
    return bytes(out), starts


def decode_names(data, starts, freq, count):
    """The inverse of encode_names, to check it."""
    got, pos = [], 0
    for i in range(count):
        if i % NAME_BLOCK == 0:
            check(pos == starts[i // NAME_BLOCK], "name block start")
            ids = []
        h = data[pos]
        pos += 1
        ids = ids[:h >> 4]
        for _ in range(h & 15):
            b = data[pos]
            pos += 1
            if b < 0x80:
                ids.append(freq[b])
            else:
                ids.append((b & 0x7F) << 8 | data[pos])
                pos += 1
        if i % NAME_BLOCK == 0:
            cp = int.from_bytes(data[pos:pos + 3], "big")
            pos += 3
        else:
            z, shift = 0, 0
            while True:
                b = data[pos]
                pos += 1
                z |= (b & 0x7F) << shift
                shift += 7
                if b < 0x80:
                    break
            cp += (z >> 1) if z % 2 == 0 else -((z + 1) >> 1)
        got.append((tuple(ids), cp))
    check(pos == len(data), "name data length")
    return got


def decode_lexicon(text, starts, count):
    words, pos = [], 0
    for i in range(count):
        if i % LEX_BLOCK == 0:
            check(pos == starts[i // LEX_BLOCK] and text[pos] == "a", "lexicon block start")
        k = ord(text[pos]) - ord("a")
        end = pos + 1
        while end < len(text) and text[end] in WORD_CHARS:
            end += 1
        words.append((words[-1][:k] if words else "") + text[pos + 1:end])
        pos = end
    return words


def c_bytes(name, data, per_line=24):
    lines = ["static const uint8_t %s[%d] = {" % (name, len(data))]
    for i in range(0, len(data), per_line):
        lines.append("  " + ",".join(str(b) for b in data[i:i + per_line]) + ",")
    lines.append("};")
    return lines


def c_ints(ctype, name, values, per_line=12):
    lines = ["static const %s %s[%d] = {" % (ctype, name, len(values))]
    for i in range(0, len(values), per_line):
        lines.append("  " + ", ".join(str(v) for v in values[i:i + per_line]) + ",")
    lines.append("};")
    return lines


def c_rows(name, rows, per_line=4):
    """A uint32_t table of equal-length rows."""
    lines = ["static const uint32_t %s[%d][%d] = {" % (name, len(rows), len(rows[0]))]
    cells = ["{" + ", ".join("0x%X" % v for v in r) + "}" for r in rows]
    for i in range(0, len(cells), per_line):
        lines.append("  " + ", ".join(cells[i:i + per_line]) + ",")
    lines.append("};")
    return lines


def c_strings(name, strs):
    """Short strings as a fixed-width char table (no pointers to relocate)."""
    width = max(map(len, strs)) + 1
    cells = ['"%s"' % s for s in strs]
    lines, line = ["static const char %s[%d][%d] = {" % (name, len(strs), width)], "  "
    for cell in cells:
        if len(line) + len(cell) > 76:
            lines.append(line.rstrip())
            line = "  "
        line += cell + ", "
    lines.append(line.rstrip())
    lines.append("};")
    return lines


def main():
    aliases, sequences = pua_names()
    lead, vowel, final = jamo()
    cjk, families, table = classify()
    check_names(table, aliases, sequences)
    check_rules(cjk, families)

    names = dict(table)
    names.update(aliases)
    words, wid = word_ids(names)
    records = sorted((tuple(wid[w] for w in n.split(" ")), cp) for n, cp in names.items())
    usage = collections.Counter()
    prev = ()
    for i, (ids, _) in enumerate(records):       # frequency among written words
        if i % NAME_BLOCK == 0:
            prev = ()
        k = 0
        while k < min(len(ids), len(prev)) and ids[k] == prev[k]:
            k += 1
        usage.update(ids[k:])
        prev = ids
    freq = sorted(w for w, _ in usage.most_common(NFREQ))
    data, name_starts = encode_names(records, {w: i for i, w in enumerate(freq)})
    lex, lex_starts = encode_lexicon(words)
    check(decode_names(data, name_starts, freq, len(records)) == records, "names decode")
    check(decode_lexicon(lex, lex_starts, len(words)) == words, "lexicon decodes")
    check(len(lex) < 0x10000, "lexicon offsets fit 16 bits")
    maxlen = max(max(map(len, names)), len(CJK) + 5,
                 len(HANGUL) + max(map(len, lead)) + max(map(len, vowel)) + max(map(len, final)),
                 max(len(f) + 5 for f in HEX_FAMILIES))

    out = ["/*",
           "** ifs_unicode_names_table.h — the character names of unicodedata.lookup",
           "** for ifs_unicode_names.c, generated by tools/gen_unicode_names.py from",
           "** Python's unicodedata (Unicode %s).  Do not edit." % unicodedata.unidata_version,
           "*/",
           "#ifndef IFS_UNICODE_NAMES_TABLE_H", "#define IFS_UNICODE_NAMES_TABLE_H",
           "#include <stdint.h>", "",
           "/* No name that lookup accepts is longer. */",
           "#define IFS_UN_MAXLEN %d" % maxlen,
           "/* Nor has more words, nor a longer word. */",
           "#define IFS_UN_MAXWORDS %d" % MAX_WORDS,
           "#define IFS_UN_MAXWORDLEN %d" % max(map(len, words)), "",
           "/* HANGUL SYLLABLE + leading consonant + vowel + final (short names). */"]
    out += c_strings("ifs_un_lead", lead)
    out += c_strings("ifs_un_vowel", vowel)
    out += c_strings("ifs_un_final", final)
    out += ["", "/* CJK UNIFIED IDEOGRAPH-XXXX: the code points it names. */"]
    out += c_rows("ifs_un_cjk", cjk)
    out += ["", "/* Names that are a prefix and the code point in hex (any case). */"]
    out += c_strings("ifs_un_hexfam", HEX_FAMILIES)
    fam_rows = sorted((lo, hi, i) for i, f in enumerate(HEX_FAMILIES) for lo, hi in families[f])
    out += ["/* {first, last, family} */"]
    out += c_rows("ifs_un_hexfam_cp", fam_rows, 3)
    out += ["",
            "/* The lexicon: %d words in byte order, front-coded in blocks of %d."
            % (len(words), LEX_BLOCK),
            "** Each word is a letter 'a'+k (k characters shared with the previous",
            "** word; 0 at a block start) and its other characters. */",
            "#define IFS_UN_NWORDS %d" % len(words),
            "#define IFS_UN_LEX_BLOCK %d" % LEX_BLOCK,
            "static const char ifs_un_lex[%d] =" % (len(lex) + 1)]
    for i in range(0, len(lex), 72):
        out.append('  "%s"' % lex[i:i + 72])
    out[-1] += ";"
    out += c_ints("uint16_t", "ifs_un_lex_start", lex_starts)
    out += ["",
            "/* Word numbers of the %d words most often written: one byte each. */"
            % NFREQ]
    out += c_ints("uint16_t", "ifs_un_freq", freq)
    out += ["",
            "/* The names (%d, %d of them aliases) as word-number sequences in" %
            (len(records), len(aliases)),
            "** order, front-coded in blocks of %d; see ifs_unicode_names.c. */" % NAME_BLOCK,
            "#define IFS_UN_NNAMES %d" % len(records),
            "#define IFS_UN_NAME_BLOCK %d" % NAME_BLOCK]
    out += c_bytes("ifs_un_names", data)
    out += c_ints("uint32_t", "ifs_un_name_start", name_starts)
    out += ["", "#endif", ""]
    sys.stdout.write("\n".join(out))
    print("names: %d in the table (%d aliases), %d words; lexicon %d bytes, "
          "names %d bytes; %d named sequences left out"
          % (len(records), len(aliases), len(words), len(lex), len(data), len(sequences)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
