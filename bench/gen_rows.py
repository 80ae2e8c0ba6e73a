"""gen_rows.py — eval rows for `make bench` where ../shared is absent.

cases(n, seed) returns n (response, constraints) pairs shaped like an
instruction-following dataset's: answers in English prose, bulleted and
numbered lists, markdown with highlighted sections and titles, JSON in code
fences, Russian, and a mix of other languages and emoji; 50 B to 16 KB, most
around 1 KB.  Each case has its own constraints, in the proportions of a
real dataset mapped to ifscore's keys: a regex on six cases in ten (the
IFEval checks: highlights, placeholders, a <<title>>, all lowercase or
capitals, a postscript, bullets, a fixed ending, quotation), keywords to
include (mostly from the answer itself, sometimes capitalised), keywords or
commas to exclude, word and character limits around the answer's own
length, must_be_json for JSON answers, and one case in twenty with none.

Only the standard library; the same seed gives the same rows.
"""

import json
import random

ENGLISH = """the of and to in is that for it as with was on be by this are from or at an
have not which but they their can more one all will about has would there been if
also when what some other into we its than time these only people may first new
two like use how most could over after such many because any where much those both
between through each world same work under while should well state years found
before long made good must system program three water life small light question
important during every large different example number following design process
answer result data model language report team market research energy history city
project service support product company customer value policy health school family
river mountain garden music story letter student teacher computer software network
security article summary section paragraph title point idea plan goal reason step
simple clear strong quick careful final main general special local public social
natural human personal political economic cultural digital global modern ancient
think believe suggest explain describe provide include consider create develop
improve require reduce increase remain continue become begin change follow help
learn move play run write read speak listen build grow open close keep hold bring
however therefore moreover furthermore although instead otherwise meanwhile overall
indeed finally first second third next last often always never usually perhaps
beautiful important interesting difficult possible necessary available effective
sunlight ocean forest village bridge castle journey adventure memory dream friend
coffee breakfast kitchen window morning evening winter summer autumn spring""".split()

RUSSIAN = """и в не на я что он с как а то все она так его но да ты к у же вы за бы по
только ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если
уже или ни быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей
может они тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего
раз тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь
этом один почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при
наконец два об другой хоть после над больше тот через эти нас про всего них какая
много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя
такой им более всегда конечно всю между ответ вопрос пример город история работа
система данные модель язык письмо текст раздел заголовок важно например однако""".split()

OTHER = """Straße Müller über schön Mädchen Grüße Fußball Öffentlichkeit Übersicht
café résumé naïve élève français garçon déjà où très été Noël crème brûlée
niño año señor mañana corazón canción información después también pequeño
λόγος ἀρχή Ελλάδα Σωκράτης φιλοσοφία ΟΔΥΣΣΕΥΣ İstanbul ığdır Şişli çay
東京 北京 上海 中文 日本語 漢字 文章 問題 答案 世界 学生 先生 水 火 山 川
😀 🚀 ✅ 🎉 👍🏽 ❤️ 🌍 📚 ☕ ⭐ — – “ ” ‘ ’ … • ×""".split()

REGEXES = [
    (105, r'(?s)^\s*".*"\s*$'), (99, r"<<[^\n]+>>"), (99, r"^[^A-Z]*\Z"),
    (69, r"^[^a-z]*\Z"), (66, r"\*\*\*"), (54, r"\b[A-Z]{2,}\b"),
    (39, r"(\*[^\n*]+\*.*?){3}"), (39, r"(\*[^\n*]+\*.*?){2}"),
    (39, r"(?im)^\s*P\.P\.S"), (30, r"(?m)(^[ \t]*[*-][ \t].*\n?){3}"),
    (30, r"My answer is (yes|no|maybe)"),
    (27, r"Is\ there\ anything\ else\ I\ can\ help\ with\?\s*\Z"),
    (27, r"(\*[^\n*]+\*.*?){1}"), (18, r"(?im)^\s*P\.S\."), (18, r"(\[[^\]]+\].*?){1}"),
    (18, r"(\[[^\]]+\].*?){3}"), (15, r"(?m)(^[ \t]*[*-][ \t].*\n?){4}"),
    (15, r"(\*[^\n*]+\*.*?){5}"), (9, r"(\[[^\]]+\].*?){7}"),
    (6, r"Let\ me\ know\ if\ you\ have\ additional\ questions\.\s*\Z"),
    (6, r"Peace!\s*\Z"),
]

ENDINGS = ["Is there anything else I can help with?", "Let me know if you have additional questions.",
           "Peace!", "Does this make sense?", "That is all you need!"]


def _words(rng, bank, n):
    return [rng.choice(bank) for _ in range(n)]


def _sentence(rng, bank, cap=True):
    w = _words(rng, bank, rng.randint(6, 18))
    if cap:
        w[0] = w[0][:1].upper() + w[0][1:]
    if rng.random() < 0.25:
        w.insert(rng.randrange(1, len(w)), rng.choice(["however,", "for example,", "in fact,"]))
    return " ".join(w) + rng.choice([".", ".", ".", "!", "?"])


def _paragraph(rng, bank, size):
    out = []
    while sum(len(s) + 1 for s in out) < size:
        out.append(_sentence(rng, bank))
    return " ".join(out)


def _prose(rng, size, bank=ENGLISH):
    paras = max(1, size // 500)
    return "\n\n".join(_paragraph(rng, bank, size // paras) for _ in range(paras))


def _bullets(rng, size):
    lines, mark = [], rng.choice(["* ", "- ", "1. "])
    intro = _sentence(rng, ENGLISH)
    while len(intro) + sum(len(x) + 1 for x in lines) < size:
        m = f"{len(lines) + 1}. " if mark == "1. " else mark
        lines.append(m + _sentence(rng, ENGLISH))
    return intro + "\n\n" + "\n".join(lines)


def _markdown(rng, size):
    parts = [f"<<{' '.join(_words(rng, ENGLISH, 3)).title()}>>"]
    while sum(len(p) for p in parts) < size:
        kind = rng.random()
        if kind < 0.3:
            parts.append(f"*{' '.join(_words(rng, ENGLISH, rng.randint(2, 5)))}*")
        elif kind < 0.45:
            parts.append(f"SECTION {len(parts)}")
        elif kind < 0.55:
            parts.append(f"[{rng.choice(['name', 'address', 'date', 'company'])}]")
        else:
            parts.append(_paragraph(rng, ENGLISH, rng.randint(120, 400)))
    if rng.random() < 0.3:
        parts.append("P.S. " + _sentence(rng, ENGLISH))
    return "\n\n".join(parts)


def _json_answer(rng, size):
    items = []
    while len(json.dumps(items)) < size:
        items.append({"title": " ".join(_words(rng, ENGLISH, 3)), "score": rng.randint(0, 100),
                      "tags": _words(rng, ENGLISH, rng.randint(1, 4)),
                      "note": _sentence(rng, ENGLISH), "ok": rng.random() < 0.5})
    body = json.dumps({"answer": items}, indent=rng.choice([None, 2]), ensure_ascii=False)
    if rng.random() < 0.1:
        body = body[:-1]   # a model that stopped early
    return rng.choice(["```json\n{}\n```", "```\n{}\n```", "{}"]).format(body)


def _mixed(rng, size):
    bank = ENGLISH + OTHER * 3
    return _prose(rng, size, bank)


def _response(rng):
    size = int(min(16000, max(50, rng.lognormvariate(7.0, 0.8))))
    kind = rng.random()
    if kind < 0.45:
        text = _prose(rng, size)
    elif kind < 0.60:
        text = _bullets(rng, size)
    elif kind < 0.70:
        text = _markdown(rng, size)
    elif kind < 0.76:
        text = _json_answer(rng, size)
    elif kind < 0.91:
        text = _prose(rng, size, RUSSIAN)
    else:
        text = _mixed(rng, size)
    r = rng.random()
    if r < 0.08:
        text = text.lower()
    elif r < 0.11:
        text = text.upper()
    if rng.random() < 0.1:
        text += "\n\n" + rng.choice(ENDINGS)
    if rng.random() < 0.05:
        text = '"' + text + '"'
    return text


def _keywords(rng, text, n):
    words = [w.strip(".,!?*:;\"'") for w in text.split()]
    words = [w for w in words if len(w) > 3 and w.isalpha()]
    out = []
    for _ in range(n):
        if words and rng.random() < 0.75:
            w = rng.choice(words)
        else:
            w = rng.choice(ENGLISH)
        if rng.random() < 0.15:
            w = w.upper()
        out.append(w)
    return out


def _constraints(rng, text, is_json):
    c = {}
    words = len(text.split())
    if rng.random() < 0.05:
        return c
    if rng.random() < 0.107:
        c["min_words"] = max(10, int(words * rng.uniform(0.6, 1.3)) // 50 * 50)
    if rng.random() < 0.085:
        c["max_words"] = max(10, int(words * rng.uniform(0.7, 1.5)) // 10 * 10)
    if rng.random() < 0.033:
        c["max_chars"] = int(len(text) * rng.uniform(0.7, 1.5))
    if is_json or rng.random() < 0.005:
        c["must_be_json"] = True
    if rng.random() < 0.29:
        kws = _keywords(rng, text, rng.choice([1, 1, 2, 2, 3, 4]))
        c["must_include"] = kws[0] if len(kws) == 1 and rng.random() < 0.4 else kws
    if rng.random() < 0.21:
        c["must_exclude"] = rng.choice([",", [","], _keywords(rng, text, rng.randint(1, 4))])
    if rng.random() < 0.57:
        total = sum(w for w, _ in REGEXES)
        pick = rng.uniform(0, total)
        for w, pattern in REGEXES:
            pick -= w
            if pick <= 0:
                c["regex"] = pattern
                break
    return c


def cases(n, seed=1):
    """n (response, constraints JSON text) pairs, each case its own."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = _response(rng)
        is_json = text.lstrip().startswith(("```", "{"))
        out.append((text, json.dumps(_constraints(rng, text, is_json), ensure_ascii=False)))
    return out
