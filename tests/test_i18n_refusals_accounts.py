"""Core's refusals about accounts, access, appeals, students' links, next steps, exports, the demo
course, course languages, rubric files and settings, in the reader's language: each is a real call
with bad input, whose error reads its English as before (the command line, logs) and which a page
shows in Swedish or Russian (`Interface.said`, as pages/_common.show_error does)."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import factories as f
from appeal_items import ADMIN, appealable, released
from core import demo, rubric, settings
from core.accounts import access, identity, preferences
from core.appeals import deadline, deciding, filing
from core.errors import FairMarkError
from core.export import analysis, released as released_export
from core.growth import learning
from core.language import course as course_language
from core.language.interface import Interface, Message
from core.students import links
from shown import plain

SV, RU = Interface("sv"), Interface("ru")


def _refused(call, *args, error=FairMarkError, **kw) -> BaseException:
    with pytest.raises(error) as caught:
        call(*args, **kw)
    assert isinstance(caught.value.args[0], Message), caught.value.args   # a page can translate it
    return caught.value


def test_a_role_refusal_names_the_role_the_action_and_whom_to_ask_in_each_language(conn):
    c = f.course(conn)
    ta = f.user(conn, "tom", role="ta", courses=[c["course_id"]])
    e = _refused(access.check, conn, ta, "release", course=c["course_id"], error=access.Forbidden)
    assert str(e) == ("Your role (teaching assistant) may not release feedback in this course; "
                      "ask the course's instructor.")
    assert SV.said(e) == "Med din roll (lärarassistent) får du inte publicera återkoppling i den här kursen; fråga kursens lärare."
    assert RU.said(e) == ("Ваша роль (ассистент преподавателя) не даёт права публиковать отзывы в этом курсе. "
                          "Кто может помочь: преподаватель курса.")
    e = _refused(identity.add_user, conn, username="eve", role="ta", password=f.PASSWORD, actor=ta,
                 error=access.Forbidden)
    assert str(e) == "Your role (teaching assistant) may not manage users and grants; ask an admin."
    assert SV.said(e) == "Med din roll (lärarassistent) får du inte hantera användare och behörigheter; fråga en administratör."
    assert RU.said(e).endswith("не даёт права управлять пользователями и доступом. Кто может помочь: администратор.")
    other = f.course(conn, "Other course")
    e = _refused(access.check, conn, ta, "read", course=other["course_id"], error=access.Forbidden)
    assert str(e) == f"You have no access to course {other['course_id']}; ask an admin to grant it."
    assert SV.said(e) == f"Du har inte tillgång till kurs {other['course_id']}; be en administratör ge dig tillgång."
    e = _refused(access.check, conn, ADMIN, "read", assignment=9999, error=access.NotFound)
    assert (str(e), SV.said(e), RU.said(e)) == ("assignment 9999 does not exist", "uppgift 9999 finns inte",
                                                "задание 9999 не существует")


def test_the_accounts_refusals_in_swedish_and_russian(conn):
    f.user(conn, "bo")
    e = _refused(identity.add_user, conn, username="bo", role="ta", password=f.PASSWORD, actor=ADMIN)
    assert (str(e), SV.said(e)) == ("A user named 'bo' exists already.", "Det finns redan en användare med namnet 'bo'.")
    e = _refused(identity.add_user, conn, username="cy", role="dean", password=f.PASSWORD, actor=ADMIN)
    assert str(e) == "Unknown role 'dean': choose one of admin, coordinator, instructor, ta."
    assert RU.said(e) == "Неизвестная роль 'dean': выберите одну из следующих: admin, coordinator, instructor, ta."
    e = _refused(identity.oidc_actor, conn, identity.Claims(email="bo@example.edu", email_verified=False),
                 error=identity.NotSignedIn)
    assert str(e).startswith("Your institution has not verified the e-mail bo@example.edu; FairMark cannot match it.")
    assert SV.said(e).startswith("Din institution har inte verifierat e-postadressen bo@example.edu;")
    assert RU.said(e).startswith("Ваша организация не подтвердила адрес bo@example.edu,")
    e = _refused(identity.first_admin, conn, username="zed", password=f.PASSWORD, error=access.Forbidden)
    assert SV.said(e) == ("FairMark har redan sin första administratör: logga in som administratör för att lägga "
                          "till användare.")
    me = f.user(conn, "di")
    e = _refused(preferences.set_language, conn, me.user_id, "de", actor=me)
    assert str(e) == ("Language 'de' is not supported. Choose one of: en (English), sv (Swedish), ru (Russian). "
                      "Or `browser` to follow the browser's language.")
    assert SV.said(e) == ("Språket 'de' stöds inte. Välj ett av: en (Engelska), sv (Svenska), ru (Ryska). "
                          "Eller `browser` för att följa webbläsarens språk.")
    assert RU.said(e).startswith("Язык 'de' не поддерживается. Выберите один из: en (")


def test_an_appeal_refused_for_the_student_and_for_the_teacher(conn):
    course = appealable(conn)
    sid, me = released(conn, course)
    title = course["rubric"].criterion("clarity").title
    e = _refused(filing.file, conn, sid, {"clarity": "x" * 1001}, actor=me)
    assert str(e) == f"Your reason for {title} has 1,001 characters; shorten it to 1,000 at most."
    assert SV.said(e) == f"Din motivering för {title} har 1,001 tecken; korta den till högst 1,000."
    assert RU.said(e) == f"В вашей причине по критерию {title} 1,001 симв.; сократите её до 1,000 симв."
    appeal = filing.file(conn, sid, {"clarity": "My example is there."}, actor=me)["appeal_id"]
    e = _refused(filing.file, conn, sid, {"clarity": "Again."}, actor=me)
    assert RU.said(e).startswith("У вас уже есть апелляция по этой работе")
    e = _refused(deciding.decide, conn, appeal, actor=ADMIN, outcome="keep", note="  ")
    assert SV.said(e) == "Skriv en anteckning till studenten: den krävs oavsett om du behåller eller ändrar poängen."
    e = _refused(deciding.decide, conn, appeal, actor=ADMIN, outcome="change", scores={"clarity": 9},
                 reason_code="too_harsh", note="Changed.")
    assert str(e) == f"the score for {title} must be a whole number from 0 to 3, not 9"
    assert RU.said(e) == f"балл по критерию {title} должен быть целым числом от 0 до 3, а не 9"
    e = _refused(deadline.parse, "soon")
    assert str(e).startswith("appeal deadline 'soon': give a date such as 2026-12-20")
    assert SV.said(e).startswith("sista dag för omprövning 'soon': ange ett datum som 2026-12-20")


def test_a_closed_appeal_says_why_on_the_student_page_in_swedish(conn, db_path):
    course = appealable(conn, deadline="2020-01-01")
    sid, me = released(conn, course)
    why = filing.for_student(conn, sid, actor=me)["why_not"]
    assert why.startswith("The deadline for appeals (") and SV.said(why).startswith("Sista dagen för omprövning (")

    def script(path: str, student_id: int, course_id: int, assignment_id: int) -> None:
        import db
        from core.accounts import access
        from pages import _student_view

        _student_view.render(db.connect(path), access.student(student_id, course_id, assignment_id=assignment_id))

    at = AppTest.from_function(script, args=(str(db_path), me.student_id, course["course_id"], me.assignment_id),
                               default_timeout=30)
    at.session_state["_ui_language"] = "sv"
    at.run()
    assert not at.exception, at.exception
    assert any(plain(i.value).startswith("Sista dagen för omprövning (") for i in at.info), [i.value for i in at.info]


def test_students_links_exports_and_next_steps_refusals(conn):
    e = _refused(links.set_link_days, conn, 0, actor=ADMIN)
    assert (str(e), SV.said(e)) == ("Students' links last between 1 and 3650 days.",
                                    "Studenternas länkar gäller mellan 1 och 3650 dagar.")
    for _ in range(links.MAX_TRIES):
        _refused(links.open_link, conn, "x" * 40, client="10.0.0.9")
    e = _refused(links.open_link, conn, "y" * 40, client="10.0.0.9", error=links.LinkRefused)
    n = e.minutes
    assert e.kind == "too_many" and str(e) == (f"Too many tries with links that open nothing. Wait {n} "
                                               f"minute{'s' if n != 1 else ''}, then open your link again.")
    word = "минуту" if n % 10 == 1 and n % 100 != 11 else "минуты" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 \
        else "минут"
    assert RU.said(e) == (f"Слишком много попыток со ссылками, которые ничего не открывают. Подождите {n} {word} и "
                          "откройте ссылку снова.")
    c = f.course(conn)
    e = _refused(released_export.export, conn, c["course_id"], fmt="pdf", actor=ADMIN)
    assert (str(e), SV.said(e)) == ("unknown export format 'pdf'; use one of csv, canvas, zip",
                                    "okänt exportformat 'pdf'; använd ett av csv, canvas, zip")
    e = _refused(released_export.export, conn, c["course_id"], fmt="csv", actor=ADMIN)
    assert str(e) == "nothing to export: no released items yet (release them first, or export approved ones explicitly)"
    assert RU.said(e).startswith("экспортировать нечего: опубликованных работ ещё нет")
    e = _refused(analysis.export, conn, c["course_id"], actor=ADMIN)
    assert SV.said(e) == "inget att exportera: inga inlämningar här än (importera reflektioner först)"
    sid = f.submission(conn, c["assignment_id"], f.student(conn, c["course_id"]))
    e = _refused(learning.mark_next_steps, conn, sid, "maybe", actor=ADMIN)
    assert str(e) == "Mark one of " + ", ".join(learning.ACTED)
    assert RU.said(e) == "Отметьте один из вариантов: " + ", ".join(learning.ACTED)


def test_the_demo_course_languages_rubric_files_and_settings_refusals(conn, tmp_path):
    e = _refused(demo.load_demo, conn, actor=ADMIN, language="ru")
    assert str(e) == "No demo course in 'ru'; demo courses: en (English), sv (Swedish)."
    assert SV.said(e) == "Det finns ingen demokurs på 'ru'; demokurser: en (Engelska), sv (Svenska)."
    e = _refused(course_language.parse, " ")
    assert str(e) == "Give the course's language: one of en (English), sv (Swedish), ru (Russian)."
    assert RU.said(e).startswith("Укажите язык курса: один из en (")
    missing = tmp_path / "none.yaml"
    e = _refused(rubric.load_rubric_file, missing)
    assert str(e) == f"Cannot read rubric file {missing}: No such file or directory"
    assert SV.said(e) == f"Kan inte läsa bedömningsmatrisens fil {missing}: No such file or directory"
    e = _refused(settings._judges, "[")
    assert str(e).startswith('FAIRMARK_JUDGES must be a JSON list like [{"name": "b", "model": "gpt-4.1-mini", '
                             '"weight": 1}] (')
    assert RU.said(e).startswith('FAIRMARK_JUDGES должен быть списком JSON вида [{"name": "b", ')
