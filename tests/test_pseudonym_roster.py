"""Masking the whole roster: classmates in every spelling, phones, e-mails; restoring only what
FairMark inserted, quotes as the student wrote them."""
import pytest

from core.privacy.pseudonym import Person, Pseudonymizer, roster

ROSTER = [
    {"name": "Ana López", "email": "ana.lopez@uni.es", "pseudonym": "Student-AAAAA"},
    {"name": "Zoë O'Connor", "email": "zoe.oc@uni.ie", "pseudonym": "Student-BBBBB"},
    {"name": "José Núñez", "email": "", "pseudonym": "Student-CCCCC"},
    {"name": "Ana Silva", "email": "ana.silva@uni.pt", "pseudonym": "Student-DDDDD"},
    {"name": "Will Rose", "email": "", "pseudonym": "Student-EEEEE"},
]


def author(i: int) -> Pseudonymizer:
    p = ROSTER[i]
    return Pseudonymizer(p["name"], p["email"], p["pseudonym"], ROSTER)


@pytest.mark.parametrize("written,who", [
    ("Ana López", "AAAAA"), ("ana lopez", "AAAAA"), ("ANA LÓPEZ", "AAAAA"), ("López", "AAAAA"),
    ("Zoë O'Connor", "BBBBB"), ("Zoe OConnor", "BBBBB"), ("zoe o’connor", "BBBBB"), ("O Connor", "BBBBB"),
    ("Zoë", "BBBBB"), ("OConnor", "BBBBB"), ("Connor", "BBBBB"),
    ("José Núñez", "CCCCC"), ("Jose Nunez", "CCCCC"), ("J. Núñez", "CCCCC"), ("Núñez", "CCCCC"),
    ("Silva", "DDDDD"), ("Ana S.", "DDDDD"),
])
def test_every_classmate_is_masked_with_their_own_pseudonym_in_any_spelling(written, who):
    hidden = author(4).hide(f"Yesterday {written} said it works.")
    assert hidden == f"Yesterday Student-{who} said it works."


def test_possessives_keep_their_ending_and_titles_stay():
    hidden = author(0).hide("I read Mr. O'Connor's notes and Zoë O'Connor's essay, then Núñez's.")
    assert hidden == "I read Mr. Student-BBBBB's notes and Student-BBBBB's essay, then Student-CCCCC's."


def test_a_first_name_shared_by_two_students_is_the_author_when_the_author_has_it():
    assert author(3).hide("I am Ana.") == "I am Student-DDDDD."
    assert author(0).hide("I am Ana.") == "I am Student-AAAAA."


def test_common_word_names_of_classmates_are_masked_only_when_capitalised():
    hidden = author(0).hide("Will said the temperature rose; I will ask Will Rose again.")
    assert hidden == "Student-EEEEE said the temperature rose; I will ask Student-EEEEE again."


@pytest.mark.parametrize("phone", ["+46 70 123 45 67", "070-123 45 67", "(555) 123-4567", "555.123.4567",
                                   "+7 (916) 123-45-67", "0046701234567"])
def test_phone_numbers_are_masked(phone):
    assert author(0).hide(f"Call me on {phone} tonight.") == "Call me on [phone] tonight."


def test_years_dates_and_counts_are_not_phone_numbers():
    text = "From 2019-2023, on 12.03.2024, 1,000,000 people and 250 students took part."
    assert author(0).hide(text) == text


@pytest.mark.parametrize("email,placeholder", [
    ("zoe.oc [at] uni.ie", "student-bbbbb@example.invalid"),
    ("zoe dot oc at uni dot ie", "student-bbbbb@example.invalid"),
    ("zoe.oc at uni.ie", "student-bbbbb@example.invalid"),           # a known address, plain " at "
    ("someone(at)gmail(dot)com", "[email]"),
    ("someone @ gmail.com", "[email]"),
])
def test_emails_of_classmates_and_strangers_are_masked_in_obfuscated_forms(email, placeholder):
    assert author(0).hide(f"Write to {email} now.") == f"Write to {placeholder} now."


def test_restoring_touches_only_what_was_inserted_and_quotes_come_back_verbatim():
    p = author(3)   # Ana Silva
    hidden = p.hide("My surname Silva comes from Porto. I asked José too.")
    assert hidden == "My surname Student-DDDDD comes from Porto. I asked Student-CCCCC too."
    # The model quotes the masked text; the quote comes back as the student wrote it.
    assert p.quote("My surname Student-DDDDD comes from Porto") == "My surname Silva comes from Porto"
    assert p.quote("my surname  Student-DDDDD comes ... asked Student-CCCCC") == "My surname Silva comes ... asked José"
    out = p.restore_obj({"evidence_quote": "My surname Student-DDDDD comes", "reasoning": "Student-DDDDD and "
                         "Student-CCCCC discussed it; Student-ZZZZZ was never in the text.",
                         "comment": 'You wrote "I asked Student-CCCCC too" - well done, Student-DDDDD.'})
    assert out["evidence_quote"] == "My surname Silva comes"
    assert out["reasoning"] == "Ana and José discussed it; Student-ZZZZZ was never in the text."
    assert out["comment"] == 'You wrote "I asked José too" - well done, Ana.'


def test_an_invented_quote_is_not_made_to_look_found():
    p = author(3)
    p.hide("My surname Silva comes from Porto.")
    assert p.quote("Student-DDDDD loves Lisbon") == "Ana loves Lisbon"


def test_a_300_student_roster_compiles_once_and_masks_everyone():
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "de", "fo", "gu", "ha", "ji", "be", "po"]
    people = [Person(f"{syllables[i % 15].title()}{syllables[(i // 15) % 15]}{'nia' if i >= 225 else 'lia'} "
                     f"{syllables[(i // 15) % 15].title()}{syllables[i % 15]}{'ström' if i >= 225 else 'berg'}",
                     f"s{i}@uni.se", f"Student-{i:05d}") for i in range(300)]
    assert len({p.name for p in people}) == 300
    r = roster(people)
    assert roster(list(people)) is r
    text = f"{people[7].name} met {people[250].name.split()[0].lower()} and {people[299].name.split()[1].upper()}."
    masked = r.mask(text, author=7)
    assert masked.text == "Student-00007 met Student-00250 and Student-00299.", text
