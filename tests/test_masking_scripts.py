"""Masking across scripts and languages (issue: the teachers' own languages): a roster name in
Cyrillic is masked when a reflection writes it in Latin letters and the other way round, a
declined Russian name and a Swedish genitive are masked, and Swedish and Russian reflections
naming classmates, assessed through the real openai client against the fake OpenAI-compatible
server, send no name in any request."""
import json
import re

import pytest

import factories
from core.accounts.access import Actor
from core.privacy import scripts
from core.privacy.masked import Person
from core.privacy.pseudonym import Pseudonymizer
from core.runs import reflections as runs
from fake_openai_server import FakeOpenAI
from privacy_cases import fold

ROSTER = [("r1", "Иван Петров"), ("r2", "Юлия Кузнецова"), ("r3", "Sergey Ivanov"), ("r4", "Åsa Öberg"),
          ("r5", "Björn Lindqvist"), ("r6", "Фёдор Щукин")]
PEOPLE = [Person(name, "", f"Student-000{i}") for i, (_, name) in enumerate(ROSTER, start=1)]


def hide(text: str, author: int = 3) -> str:
    return Pseudonymizer(PEOPLE[author].name, "", PEOPLE[author].pseudonym, PEOPLE).hide(text)


@pytest.mark.parametrize("text, masked", [
    ("I worked with Ivan Petrov and Yulia Kuznetsova.", "I worked with Student-0001 and Student-0002."),
    ("Julia and Iuliia Kuznetsova, Fyodor Shchukin, Fedor Schukin.",
     "Student-0002 and Student-0002, Student-0006, Student-0006."),
    ("Я работал с Сергеем Ивановым, а Сергей Иванов молчал.", "Я работал с Student-0003, а Student-0003 молчал."),
    ("Ivan's notes helped.", "Student-0001's notes helped."),
])
def test_a_name_in_the_other_script_or_another_romanisation_is_masked(text, masked):
    assert hide(text) == masked


@pytest.mark.parametrize("text, masked", [
    ("Я спросил Ивана Петрова и Юлию, потом Юлией и Кузнецовой.",
     "Я спросил Student-0001 и Student-0002, потом Student-0002 и Student-0002."),
    ("О Петрове и Щукине, у Фёдора.", "О Student-0001 и Student-0006, у Student-0006."),
])
def test_a_declined_russian_name_is_masked(text, masked):
    assert hide(text) == masked


def test_a_declined_russian_name_written_in_lower_case_is_masked():
    # "иван петров" in lower case is masked as it stands; its declined forms must be too
    assert hide("я работал с иваном петровым и с юлией.") == "я работал с Student-0001 и с Student-0002."
    assert hide("поговорил с сергеем") == "поговорил с Student-0003"       # a Latin roster name, declined in Cyrillic


def test_a_swedish_genitive_and_a_name_without_its_dots_are_masked():
    assert hide("Jag läste Björns text och Asa Obergs anteckningar; Lindqvists idé.", author=0) == \
        "Jag läste Student-0005s text och Student-0004s anteckningar; Student-0005s idé."


def test_a_swedish_name_written_in_cyrillic_is_masked():
    # A Russian text writes a Swedish classmate in Cyrillic: "Бьорн Линдквист" is Björn Lindqvist
    assert hide("Я читал работу Бьорна Линдквиста.") == "Я читал работу Student-0005."


def test_ordinary_words_and_other_latin_names_are_left_alone():
    text = "Большой Дом стоит у реки. Москва. Jan and Ivana met Sergio. Bass, lens, petrol and basis."
    assert hide(text) == text
    # A Latin name that is one spelling only ("Ian") does not take in another name ("Jan").
    p = Pseudonymizer("Ian Jones", "", "S-1")
    assert p.hide("Jan and Ian") == "Jan and S-1"


def test_the_teacher_sees_the_names_again():
    p = Pseudonymizer(*ROSTER[0][1:], "", "Student-0001", PEOPLE)
    assert p.hide("Юлией Кузнецовой") == "Student-0002"
    assert p.restore("Хорошо, что ты работал со Student-0002.") == "Хорошо, что ты работал со Юлия."


def test_skeletons_of_the_common_romanisations_agree():
    for cyrillic, latins in {"Евгений": ("Yevgeny", "Evgeniy", "Evgenii", "Jevgenij"),
                             "Наталья": ("Natalya", "Natalia", "Natalja"),
                             "Цветаева": ("Tsvetaeva", "Tsvetayeva", "Cvetaeva"),
                             "Жуков": ("Zhukov", "Žukov"), "Хабибуллин": ("Khabibullin", "Habibullin"),
                             "Ксения": ("Kseniya", "Xenia")}.items():
        assert {scripts.skeleton(x) for x in latins} == {scripts.skeleton(cyrillic)}, cyrillic


# --- through the real client to the fake server ---------------------------------------------
RU = ("На этой неделе я разбирался, как температура меняет ответы модели. Я работал с Юлией Кузнецовой и "
      "Сергеем Ивановым; Yulia Kuznetsova показала пример, а Sergei Ivanov спорил с Фёдором Щукиным. "
      "Ещё Åsa Öberg и Бьорн помогали, а у Björn Lindqvist был свой вариант. ")
SV = ("Den här veckan lärde jag mig hur temperaturen påverkar svaren. Jag jobbade med Bjorn Lindqvist och "
      "Ivan Petrov; Иван Петров och Юлия Кузнецова visade sina exempel, och Sergejs anteckningar hjälpte. "
      "Fedor Schukin höll inte med, men Åsas idé var bäst. ")
FILLER = {"ru": "Я думаю, что пример с письмами на работе помог мне понять, почему ответы такие разные. ",
          "sv": "Jag tror att exemplet med mejlen på jobbet hjälpte mig att förstå varför svaren skiljer sig. "}
# Every form of every name the two reflections use, and each roster part in both scripts.
FORMS = ("Юлией", "Кузнецовой", "Сергеем", "Ивановым", "Yulia", "Kuznetsova", "Sergei", "Ivanov", "Фёдором",
         "Щукиным", "Åsa", "Öberg", "Björn", "Bjorn", "Lindqvist", "Ivan", "Petrov", "Иван", "Петров", "Юлия",
         "Кузнецова", "Sergejs", "Fedor", "Schukin", "Åsas", "Сергей", "Иванов", "Фёдор", "Щукин", "Sergey")


@pytest.fixture
def course(conn):
    c = factories.course(conn, name="Språk och язык")
    students = {ext: factories.student(conn, c["course_id"], external_id=ext, name=name) for ext, name in ROSTER}
    factories.submission(conn, c["assignment_id"], students["r4"], RU + FILLER["ru"] * 6)
    factories.submission(conn, c["assignment_id"], students["r6"], SV + FILLER["sv"] * 6)
    return c


def test_swedish_and_russian_reflections_send_no_classmates_name_to_the_model(conn, db_path, course, monkeypatch):
    with FakeOpenAI() as server:
        monkeypatch.setenv("FAIRMARK_LLM_BASE_URL", server.base_url)
        factories.cleared_config(conn)
        run_id = runs.create(conn, course_id=course["course_id"], provider="openai", actor=Actor("test", role="admin"))
        p = runs.execute(db_path, run_id, actor=Actor("test", role="admin"))
    assert p["status"] == "done" and p["failed"] == 0
    bodies = [json.loads(b) for b in server.bodies]
    sent = fold("\n".join(str(m.get("content", "")) for b in bodies for m in b.get("messages", [])))
    assert fold("температура меняет ответы") in sent and fold("temperaturen påverkar svaren") in sent   # both sent
    found = sorted({f for f in FORMS if re.search(rf"(?<!\w){re.escape(fold(f))}(?!\w)", sent)})
    assert found == []
