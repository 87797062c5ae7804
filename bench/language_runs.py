"""A Swedish and a Russian assignment through the real run engine, with the scripted LLM and
with the offline baseline: does everything work in the course's language?

    python -m bench.language_runs [--n 40] [--latency 0]

For each language a course in that language gets one assignment of N synthetic reflections
(composed from hand-written Swedish and Russian sentences, at least 110 words each, unique per
student), assessed by a real run (core.runs.reflections) twice: with bench.fake's scripted LLM,
which answers in the language its prompt names (its comment is a fixed one in that language),
and with the offline baseline. Reported per language and provider: the run's time, what the
drafts' statuses are, how many were flagged as not in the course's language (0 is right: every
text is in it), the share of calls whose prompt named the course language, the share of drafted
comments detected in the course language, and the offline scorer's note on the signals it used.
Prints one JSON object.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

SENTENCES = {
    "sv": (
        "Den här veckan lärde jag mig hur en stor språkmodell förutsäger nästa ord utifrån sammanhanget.",
        "Temperaturen styr hur slumpmässiga svaren blir, och ett högre värde gjorde texterna mer kreativa men mindre pålitliga.",
        "På jobbet använde jag en chattbot för att skriva mejl till kunder och kontrollerade sedan varje uppgift själv.",
        "Jag undrar hur snedvridningar hamnar i träningsdata, eftersom data kan spegla gamla föreställningar om människor.",
        "Jag är inte säker på att vi kan lita på verktygen vid rekrytering utan att en människa granskar varje resultat.",
        "Därför ska jag testa samma instruktion flera gånger och jämföra svaren innan jag litar på dem.",
        "Tokens förvirrar mig fortfarande lite, särskilt när ett långt ord delas upp i flera delar.",
        "Kursen hjälpte mig att se systemens gränser, till exempel när de hittar på fakta eller källor.",
        "I mitt team skriver vi nu ner vilken instruktion som gav vilket svar, så att vi kan upprepa ett bra resultat.",
        "Min chef frågade om modellen kunde sammanfatta rapporter, och jag förklarade varför en människa också bör läsa dem.",
        "När jag granskade svaren med en kort checklista blev mitt eget arbete noggrannare och jämnare.",
        "Jag insåg att rättvisa inte bara handlar om modellen utan också om hur människor använder svaren.",
    ),
    "ru": (
        "На этой неделе я узнал, как большая языковая модель предсказывает следующее слово по контексту.",
        "Температура определяет, насколько случайны ответы, и при высоком значении тексты были креативнее, но менее надёжны.",
        "На работе я использовал чат-бота, чтобы писать письма клиентам, а потом сам проверял каждый факт.",
        "Мне интересно, как предвзятость попадает в обучающие данные, ведь данные могут отражать старые представления о людях.",
        "Я не уверен, что можно доверять этим инструментам при найме без человека, который проверяет каждый результат.",
        "Поэтому я буду проверять одну и ту же инструкцию несколько раз и сравнивать ответы, прежде чем на них полагаться.",
        "Токены всё ещё немного меня путают, особенно когда длинное слово делится на несколько частей.",
        "Курс помог мне увидеть пределы этих систем, например когда они придумывают факты или источники.",
        "В моей команде мы теперь записываем, какая инструкция дала какой ответ, чтобы повторить хороший результат.",
        "Мой руководитель спросил, может ли модель кратко пересказывать отчёты, и я объяснил, почему их должен читать и человек.",
        "Когда я проверял ответы по короткому списку, моя собственная работа стала аккуратнее и последовательнее.",
        "Я понял, что справедливость зависит не только от модели, но и от того, как люди используют её ответы.",
    ),
}
ENDING = {"sv": "Det här är reflektion nummer {i} i den syntetiska kursen.",
          "ru": "Это рефлексия номер {i} синтетического курса."}
# The scripted model's comment in each language: strengths, two numbered steps, the coach's question.
COMMENTS = {
    "Swedish": ("Du förklarar temperaturen tydligt och ger ett konkret exempel från jobbet. Nästa steg: (1) koppla "
                "temperaturen till snedvridning, (2) skriv en fråga som du fortfarande har. Vad skulle du testa först?"),
    "Russian": ("Ты понятно объясняешь температуру и приводишь конкретный пример с работы. Дальше: (1) свяжи "
                "температуру с предвзятостью, (2) запиши вопрос, который у тебя остался. Что бы ты проверил первым?"),
}
QUESTIONS = {"Swedish": "Vad skulle du testa först?", "Russian": "Что бы ты проверил первым?"}


def reflection(rng: random.Random, language: str, i: int, min_words: int = 110) -> str:
    picked, n = [], 0
    order = list(SENTENCES[language])
    rng.shuffle(order)
    for s in order:
        picked.append(s)
        n += len(s.split())
        if n >= min_words:
            break
    return " ".join([*picked, ENDING[language].format(i=i)])


def build(path: str, language: str, n: int, first_id: int, seed: int = 0) -> dict:
    """A course in `language` with one assignment of `n` uploaded reflections."""
    import db as dbmod
    from core.rubric import default_rubric
    from db import courses

    rng = random.Random(seed)
    conn = dbmod.connect(path)
    rid = courses.save_rubric(conn, default_rubric(language))   # the course's language's default rubric
    with conn.atomic():
        cid = courses.ensure_course(conn, f"Language course ({language})", is_synthetic=True)
        courses.set_course_language(conn, cid, language)
        aid = courses.ensure_assignment(conn, cid, "Week 1", rubric_id=rid, week=1, prompt="Reflect on this week.",
                                        key_concepts=["temperatur" if language == "sv" else "температур"])
        ids = list(range(first_id, first_id + n))
        conn.conn.executemany(
            "INSERT INTO students (id, course_id, external_id, name, email, pseudonym, attributes) VALUES (?,?,?,?,?,?,?)",
            [(i, cid, f"{language}{i:06d}", f"Student Name {i}", f"s{i}@example.edu", f"Student-{i:06d}", "{}")
             for i in ids])
        rows = []
        for i in ids:
            text = reflection(rng, language, i)
            rows.append((i, aid, i, text, hashlib.sha256(text.encode()).hexdigest(), len(text.split())))
        conn.conn.executemany("INSERT INTO submissions (id, assignment_id, student_id, text, text_hash, word_count) "
                              "VALUES (?,?,?,?,?,?)", rows)
    conn.close()
    return {"course_id": cid, "assignment_id": aid, "submission_ids": ids}


def scripted_llm(latency: float):
    """bench.fake's scripted model, answering in the language its prompt names."""
    from bench import fake

    class InTheLanguage(fake.SleepyLLM):
        prompts_naming = Counter()

        def complete(self, messages, schema, *, role, ctx, temperature=None):
            system = messages[0]["content"]
            name = next((k for k in COMMENTS if f"the feedback is in {k}" in system), None)
            self.prompts_naming[name or "none"] += 1
            if name and role in ("aggregator", "reviser", "coach"):
                from core.llm import LLMResponse, Usage

                answer = {"questions": [QUESTIONS[name]]} if role == "coach" else {"comment": COMMENTS[name]}
                time.sleep(self.latency)
                data = schema.model_validate(answer)
                return LLMResponse(data=data, model=self.model_for(role), raw=data.model_dump_json(),
                                   usage=Usage(tokens_in=sum(len(m["content"]) for m in messages) // 4, tokens_out=60),
                                   latency_ms=self.latency * 1000, attempts=1, response_mode="fake")
            return super().complete(messages, schema, role=role, ctx=ctx, temperature=temperature)

    return InTheLanguage(latency)


def outcome(db_path: str, run_id: int, language: str) -> dict:
    import db as dbmod
    from core.language import detect
    from core.offline import features
    from db import loads

    conn = dbmod.connect(db_path)
    try:
        rows = list(conn.query("SELECT status, flags, comment, outputs, attention_reasons FROM drafts WHERE run_id = ?",
                               [run_id]))
    finally:
        conn.close()
    flags = Counter(f for r in rows for f in loads(r["flags"], []))
    comments = [r["comment"] or "" for r in rows]
    reasons = Counter(reason.split(":")[0][:90] for r in rows for reason in loads(r["attention_reasons"], []))
    note = features.signals_note(language)
    said = sum(all(note in (v.get("reasoning") or "") for k, v in (loads(r["outputs"], {}).get("evaluator") or {}).items()
                   if isinstance(v, dict) and "score" in v) for r in rows)
    return {"drafts": len(rows), "statuses": dict(Counter(r["status"] for r in rows)),
            "flagged_not_in_course_language": flags.get("non_english", 0),
            "comments_in_course_language": round(sum(detect.detect(c) == language for c in comments) / max(len(rows), 1), 4),
            "offline_note_on_every_criterion": said, "attention_reasons": dict(reasons.most_common(3))}


def measure(work: Path, n: int, latency: float) -> dict:
    from bench.pipeline import assess_run
    from core.llm import LoggedLLM, make_llm

    out = {}
    for k, language in enumerate(("sv", "ru")):
        for provider in ("scripted", "offline"):
            path = str(work / f"{language}-{provider}.db")
            info = build(path, language, n, first_id=1 + k * n)
            llm = scripted_llm(latency) if provider == "scripted" else make_llm("offline", path)
            run_id, wall = assess_run(path, info, LoggedLLM(llm, path) if provider == "scripted" else llm,
                                      concurrency=4)
            row = {"n": n, "wall_s": round(wall, 3), "ms_per_item": round(wall / n * 1000, 1),
                   **outcome(path, run_id, language)}
            if provider == "scripted":
                named = llm.prompts_naming
                row["calls_whose_prompt_names_the_language"] = round(
                    (sum(named.values()) - named.get("none", 0)) / max(sum(named.values()), 1), 4)
                row["calls"] = sum(named.values())
            out[f"{language} {provider}"] = row
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m bench.language_runs", description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=40, help="reflections per language (default 40)")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds the scripted LLM takes per call")
    args = ap.parse_args(argv)
    from bench import database_env
    import db as dbmod

    with tempfile.TemporaryDirectory(prefix="fairmark-lang-") as tmp:
        work = Path(tmp)
        with database_env(str(work / "unused.db")):
            out = measure(work, args.n, args.latency)
        for f in work.glob("*.db"):
            dbmod.forget_migrated(str(f))
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return out


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
