"""The feedback checks in Swedish and Russian (issue: the teachers' own languages): word and
sentence splitting, the actions, question, strengths-first and evidence-quote checks, the
next-step, specifics and no-terms rules, readability per language, and the lexicon of
person-directed phrases that the Equity Monitor's offline twin shares."""
from types import SimpleNamespace as NS

import pytest

from core import checks
from core.checks import DraftContext
from core.evals import rules
from core.language import readability, words
from core.offline import heuristics
from core.text import words as word_count

SV_TEXT = ("Den här veckan lärde jag mig hur temperaturen påverkar språkmodellens svar. På jobbet provade jag "
           "samma fråga två gånger – och fick ”helt olika svar, nästan motsatta”.")
RU_TEXT = ("На этой неделе я понял, как температура влияет на ответы модели. На работе я ещё раз задал "
           "тот же вопрос — и получил «совсем другой ответ, почти противоположный». Как писал Выготский, "
           "мышление растёт из речи.")


def by_name(results):
    return {c["name"]: c for c in results}


# --- 1. words and sentences --------------------------------------------------------------
@pytest.mark.parametrize("text, n", [
    ("слово,слово и ещё одно", 5),                  # no space after the comma: still two words
    ("Stockholm–Uppsala, två städer", 4),            # an en dash between names separates them
    ("из-за того, что ёжик — колючий", 5),          # a hyphenated word is one, a dash none
    ("Vi läste t.ex. Kolbs cykel; d.v.s. fyra steg.", 8),
    ("It's a well-known idea — e.g. (1) this.", 7),  # English as before
    ("Skriv till anna@uni.se eller https://uni.se/kurs/a-b", 5),   # an address is one word
])
def test_the_one_word_count_splits_swedish_russian_and_english_words(text, n):
    assert words.count(text) == n
    assert word_count(text) == n
    assert len(words.tokens(text)) == n


def test_the_120_word_limit_counts_words_glued_by_punctuation():
    ok = ",".join(["ord"] * 120)
    over = ",".join(["слово"] * 121)
    assert checks.check_word_count(ok, "sv")["passed"]
    got = checks.check_word_count(over, "ru")
    assert not got["passed"] and got["detail"] == "121 words"


def test_sentences_keep_abbreviations_and_lower_case_continuations_together():
    assert words.sentences("Это важно, т. е. модель ошибается. См. Выготский, 1934. Что дальше?", "ru") == [
        "Это важно, т. е. модель ошибается.", "См. Выготский, 1934.", "Что дальше?"]
    assert words.sentences("Du nämner bl.a. Kolb. Bra! Vad hände sen?", "sv") == [
        "Du nämner bl.a. Kolb.", "Bra!", "Vad hände sen?"]


def test_the_sentence_length_rule_does_not_break_a_russian_sentence_at_an_abbreviation():
    long = ("Ты очень хорошо пишешь о температуре и о словах, т. е. о том, как модель выбирает следующее слово "
            "в твоём примере. Что дальше?")
    passed, detail = rules.sentence_length(long, None, NS(max=20, language="ru"))
    assert not passed and "longest sentence 21 words" in detail


# --- 2. actions, question, strengths first, quotes, next step, specifics, terms -------------
def test_a_dash_list_counts_as_actions_in_swedish_and_russian():
    sv = "Bra början.\n– Lägg till ett exempel.\n– Korrekturläs texten.\nVad vill du pröva?"
    ru = "Хорошее начало.\n— Добавь пример.\n— Перечитай текст.\nЧто ты проверишь?"
    assert checks.check_actions(sv, "sv")["passed"] and checks.check_actions(ru, "ru")["passed"]
    passed, detail = rules.next_step(ru.replace("Что ты проверишь?", ""), None, NS(language="ru"))
    assert passed and detail == "2 numbered step(s)"


@pytest.mark.parametrize("comment, language", [
    ("Ты спрашиваешь «почему модель ошибается?» — хороший вопрос. (1) Добавь пример. (2) Перечитай.", "ru"),
    ("Du frågar ”varför blir svaren olika?” och det är bra. (1) Lägg till ett exempel. (2) Korrekturläs.", "sv"),
])
def test_a_question_mark_inside_the_students_quoted_words_is_not_the_comments_question(comment, language):
    assert not checks.check_question(comment, language)["passed"]
    assert checks.check_question(comment + " Что ты проверишь первым?", language)["passed"]


@pytest.mark.parametrize("comment, language, ok", [
    ("Du förklarar tydligt hur temperaturen påverkar svaren. Lägg till ett exempel.", "sv", True),
    ("Du beskriver ditt arbete noggrant. Vad vill du pröva?", "sv", True),
    ("Texten saknar ett exempel. Lägg till ett.", "sv", False),
    ("Ты хорошо объясняешь, как температура влияет на ответы. Добавь пример.", "ru", True),
    ("Отличный пример с письмами на работе. Что дальше?", "ru", True),
    ("Хорошее начало, но не хватает примера. Добавь его.", "ru", False),
])
def test_strengths_first_reads_swedish_and_russian_praise_and_critique(comment, language, ok):
    assert checks.check_strengths_first(comment, language)["passed"] is ok


def test_evidence_quotes_match_whatever_the_quote_marks_dashes_and_yo():
    evaluation = {"reflection_depth": {"evidence_quote": "«еще раз задал тот же вопрос - и получил"},
                  "concepts": {"evidence_quote": "„совсем другой ответ, почти противоположный“"}}
    assert checks.check_evidence_quotes(evaluation, RU_TEXT, "ru")["passed"]
    sv = {"reflection_depth": {"evidence_quote": "\"två gånger - och fick \"helt olika svar"}}
    assert checks.check_evidence_quotes(sv, SV_TEXT, "sv")["passed"]
    made_up = {"concepts": {"evidence_quote": "«я прочитал три статьи»"}}
    got = checks.check_evidence_quotes(made_up, RU_TEXT, "ru")
    assert not got["passed"] and "я прочитал три статьи" in got["detail"]


def test_a_comment_quotation_in_low_high_quotes_is_checked_against_the_text():
    got = checks.check_comment_quotes("Ты пишешь „модель всегда права“, но это не так.", RU_TEXT, "ru")
    assert not got["passed"] and "модель всегда права" in got["detail"]


def test_specifics_reads_cyrillic_names_and_declined_forms():
    inp = NS(reflection=RU_TEXT, source="", question="", language="ru")
    passed, detail = rules.specifics("Хорошо, что ты вспомнил Выготского. Сравни его с Пиаже. Вы согласны?", inp, NS())
    assert not passed and detail.endswith(": Пиаже")     # Выготского is the text's Выготский; "Вы" is polite


def test_no_terms_finds_swedish_and_russian_assessment_jargon():
    context = DraftContext(criterion_keys=("reflection_depth",))
    sv = by_name(rules.draft_checks("Du når kriterierna för djup. Vad vill du pröva?", SV_TEXT, context, "sv"))
    ru = by_name(rules.draft_checks("По критерию глубины всё хорошо, языковой модели ясно. Что дальше?", RU_TEXT,
                                    context, "ru"))
    assert not sv["no_terms"]["passed"] and '"kriteri"' in sv["no_terms"]["detail"]
    assert not ru["no_terms"]["passed"] and '"критери"' in ru["no_terms"]["detail"] and "языков модел" in ru[
        "no_terms"]["detail"]


def test_a_coach_question_rephrased_in_russian_still_counts():
    coach = ("Какой пример из твоей работы лучше всего показывает разницу?",)
    comment = "Хорошо. (1) Добавь пример. (2) Перечитай. Какой пример из работы лучше всего показывает эту разницу?"
    assert checks.check_coach_question(comment, coach, "ru")["passed"]
    assert not checks.check_coach_question("Хорошо. Что дальше?", coach, "ru")["passed"]


# --- 3. readability ---------------------------------------------------------------------
def test_lix_and_oborneva_by_hand():
    # LIX: 2 words / 1 sentence + 100 × 2 long words / 2 words.
    assert readability.lix("Utvecklingen fortsätter.") == 102.0
    assert readability.lix("Jag läser. Boken är bra.") == 2.5
    # Oborneva: 206.835 - 1.3 × 3 words - 60.1 × 6 syllables / 3 words.
    assert readability.oborneva("Мама мыла раму.") == 82.7
    assert readability.syllables("språkmodell", "sv") == 3 and readability.syllables("поэт", "ru") == 2


def test_the_target_grade_maps_to_a_band_per_language():
    assert readability.target_range(10, "sv") == (40, 50) and readability.target_range(4, "sv") == (0, 30)
    assert readability.target_range(8, "ru") == (70, 60) and readability.target_range(11, "ru") == (60, 50)
    assert readability.target_shown(10, "sv") == "LIX 40-50 (medium) for grade 10"


HARD_SV = ("Implementeringen av sannolikhetsbaserade språkmodeller förutsätter omfattande överväganden "
           "beträffande tillförlitlighet, reproducerbarhet och organisatoriska ansvarsförhållanden.")
HARD_RU = ("Рассмотренная методологическая проблематика интерпретируемости вероятностных языковых моделей "
           "характеризуется существенной неоднозначностью теоретических предпосылок.")


@pytest.mark.parametrize("language, easy, hard", [
    ("sv", "Du skriver tydligt och enkelt. Vad vill du pröva nu? Skriv ett exempel till.", HARD_SV),
    ("ru", "Ты пишешь ясно и просто. Что ты хочешь проверить? Напиши ещё один пример.", HARD_RU),
])
def test_readability_uses_the_languages_formula_against_the_target(language, easy, hard):
    tough = checks.check_readability(hard, 8, language)
    assert not tough["passed"] and tough["severity"] == "fail"
    assert readability.FORMULA[language].split()[0] in tough["detail"]
    plain = checks.check_readability(easy, 8, language)
    assert plain["severity"] != "fail"
    assert rules.readability(hard, NS(level=8, language=language), NS(max=None)) [0] is False
    assert rules.readability(easy, NS(level=8, language=language), NS(max=None))[0] is True


def test_english_readability_is_still_flesch_kincaid():
    assert checks.check_readability("You explain it well. What next?", 8) == checks.check_readability(
        "You explain it well. What next?", 8, "en")
    assert "grade" in checks.check_readability("You explain it well. What next?", 8)["detail"]


# --- 4. the lexicon of person-directed phrases (the Equity Monitor's) -------------------------
@pytest.mark.parametrize("text, language, phrase", [
    ("Studenten är lat och skriver slarvigt.", "sv", "lat"),
    ("Din svenska är dålig, det syns.", "sv", "din svenska är dålig"),
    ("Som alla vet räcker det inte.", "sv", "som alla vet"),
    ("Ты такой ленивый, что не дописал.", "ru", "ты такой ленивый"),
    ("Очевидно, студент не понял тему.", "ru", "очевидно"),
    ("Даже ребёнок знает это.", "ru", "даже ребёнок"),
])
def test_the_lexicon_flags_swedish_and_russian_person_directed_phrases(text, language, phrase):
    assert phrase in checks.lexicon_hits(text, language)
    assert not checks.check_lexicon(text, language)["passed"]
    assert phrase in [f["phrase"] for f in heuristics.equity_flags(text, language)["flags"]]


@pytest.mark.parametrize("text, language", [
    ("Du förklarar tydligt, och latin nämns inte. Vad vill du pröva?", "sv"),
    ("Ты зашёл в тупик с примером, но это просто исправить. Что дальше?", "ru"),
])
def test_the_lexicon_leaves_ordinary_swedish_and_russian_alone(text, language):
    assert checks.check_lexicon(text, language)["passed"]


def test_english_phrases_are_still_found_in_a_swedish_course():
    assert "lazy" in checks.lexicon_hits("Lazy work, tyvärr.", "sv")


@pytest.mark.parametrize("comment, text, language", [
    ("Du förklarar tydligt hur temperaturen påverkar svaren.\n– Lägg till ett exempel.\n– Läs igenom.\n"
     "Vad vill du pröva?", SV_TEXT, "sv"),
    ("Ты хорошо объясняешь, как температура влияет на ответы модели.\n— Добавь пример из работы.\n"
     "— Перечитай вывод.\nЧто ты проверишь первым?", RU_TEXT, "ru"),
])
def test_a_good_swedish_or_russian_comment_passes_every_check(comment, text, language):
    got = by_name(checks.comment_checks(comment, text, target_grade=8, language=language)
                  + rules.draft_checks(comment, text, DraftContext(), language))
    assert [n for n, c in got.items() if not c["passed"]] == []
    assert readability.FORMULA[language] in got["readability"]["detail"]


@pytest.mark.parametrize("comment, language", [
    ("Förra veckan planerade du att lägga till ett exempel, och det gör du nu.", "sv"),
    ("Du följer förra veckans nästa steg väl.", "sv"),
    ("На прошлой неделе ты планировал добавить пример, и теперь он есть.", "ru"),
    ("Ты учёл прошлый отзыв: пример стал конкретнее.", "ru"),
])
def test_a_claim_about_last_weeks_feedback_is_found_in_swedish_and_russian(comment, language):
    new_student = NS(reflection="", source="", question="", previous="")
    passed, detail = rules.history(comment, new_student, NS(language=language))
    assert not passed and "never given" in detail
    assert rules.follow_through(comment, new_student, NS(language=language))[0]
    got = by_name(rules.draft_checks(comment, "", DraftContext(), language))["history"]
    assert not got["passed"] and got["severity"] == "fail"


@pytest.mark.parametrize("comment, language", [
    ("Förra veckan läste du om temperatur, skriver du.", "sv"),
    ("На прошлой неделе ты читал о температуре, пишешь ты.", "ru"),
])
def test_last_week_alone_is_no_claim_about_feedback(comment, language):
    assert rules.history_claims(comment, language) == []
