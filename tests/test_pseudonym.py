"""Pseudonyms: no spelling, case, apostrophe or e-mail disguise lets a real name reach the LLM."""
import unicodedata

import pytest

from core.privacy.pseudonym import COMMON_WORDS, Pseudonymizer


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_decomposed_unicode_in_the_text_is_hidden():
    p = Pseudonymizer("José Núñez", "", "Student-0001")
    text = nfd("I am José Núñez. Núñez is my family name; José my first.")
    assert text != unicodedata.normalize("NFC", text)  # really decomposed
    hidden = p.hide(text)
    assert hidden == "I am Student-0001. Student-0001 is my family name; Student-0001 my first."


def test_decomposed_unicode_in_the_roster_is_hidden_and_restored_composed():
    p = Pseudonymizer(nfd("José Núñez"), "", "Student-0001")
    assert p.hide("Signed, José Núñez") == "Signed, Student-0001"
    assert p.restore("Well done, Student-0001.") == "Well done, José."


def test_accents_are_optional():
    assert Pseudonymizer("José Núñez", "", "S-1").hide("jose nunez, Jose, NUNEZ") == "S-1, S-1, S-1"


@pytest.mark.parametrize("text", ["ÅSA LIND wrote this", "åsa lind wrote this", "Åsa wrote this",
                                  "åsa wrote this", "ÅSA wrote this", "lind wrote this"])
def test_name_parts_match_in_any_case(text):
    hidden = Pseudonymizer("Åsa Lind", "", "S-2").hide(text)
    assert hidden == "S-2 wrote this"


def test_lower_case_first_name_is_hidden():
    assert Pseudonymizer("Anna Berg", "", "S-3").hide("my name is anna, anna berg.") == "my name is S-3, S-3."


@pytest.mark.parametrize("written", ["O'Brien", "O’Brien", "O‘Brien", "OʼBrien", "o’brien", "O’BRIEN"])
@pytest.mark.parametrize("roster", ["Liam O'Brien", "Liam O’Brien"])
def test_apostrophes_are_interchangeable(roster, written):
    hidden = Pseudonymizer(roster, "", "S-4").hide(f"As {written}'s essay says, {written} was right.")
    assert "brien" not in hidden.lower() and hidden.count("S-4") == 2


def test_full_name_with_a_curly_apostrophe_and_odd_spacing():
    p = Pseudonymizer("Liam O'Brien", "", "S-4")
    assert p.hide("Liam  O’Brien\nhere") == "S-4\nhere"


def test_hyphenated_names_hide_each_piece():
    p = Pseudonymizer("Anne-Marie Svensson", "", "S-5")
    assert p.hide("Anne-Marie, anne‐marie, Anne and marie agreed") == "S-5, S-5, S-5 and S-5 agreed"


@pytest.mark.parametrize("text", [
    "mail anna.berg [at] uni.se please",
    "mail anna.berg(at)uni(dot)se please",
    "mail anna dot berg at uni dot se please",
    "mail anna.berg at uni.se please",
    "mail ANNA.BERG @ UNI.SE please",
    "mail anna . berg {at} uni . se please",
    "mail anna.berg＠uni.se please",
])
def test_own_email_in_obfuscated_forms_becomes_the_pseudonymous_address(text):
    p = Pseudonymizer("Anna Berg", "anna.berg@uni.se", "Student-0007")
    assert p.hide(text) == "mail student-0007@example.invalid please"
    assert p.restore(p.hide(text)) == "mail anna.berg@uni.se please"


@pytest.mark.parametrize("text", [
    "cc bob.smith [at] example.org now",
    "cc bob.smith (at) example (dot) org now",
    "cc bob dot smith at example dot org now",
    "cc bob.smith @ example.org now",
    "cc bob.smith@example.org now",
])
def test_other_emails_in_obfuscated_forms_become_a_placeholder(text):
    assert Pseudonymizer("Anna Berg", "anna.berg@uni.se", "S-7").hide(text) == "cc [email] now"


def test_ordinary_at_and_dot_are_not_mistaken_for_emails():
    text = "I looked at chatgpt.com at 10.30, good at maths. The dot product at work.se was new."
    assert Pseudonymizer("Anna Berg", "anna.berg@uni.se", "S-7").hide(text) == text


@pytest.mark.parametrize("name,text", [
    ("Will Rose", "I will try it: temperature rose and the answers will vary."),
    ("Mark May", "I may mark my own work; the mark may change."),
    ("Grace Hope", "I hope to show grace under pressure."),
    ("Memory Banda", "The model has no memory of earlier chats."),
    ("Ai Tanaka", "AI tools help; ai is everywhere."),
])
def test_ordinary_words_are_not_mangled(name, text):
    assert Pseudonymizer(name, "", "S-8").hide(text) == text


@pytest.mark.parametrize("name,text,expected", [
    ("Will Rose", "Will Rose here. Will thinks Rose is right. WILL ROSE", "S-8 here. S-8 thinks S-8 is right. S-8"),
    ("Mark May", "Mark wrote: May I add this?", "S-8 wrote: S-8 I add this?"),
])
def test_common_word_names_are_hidden_when_capitalised(name, text, expected):
    assert Pseudonymizer(name, "", "S-8").hide(text) == expected


def test_the_common_word_list_covers_the_documented_examples():
    assert {"rose", "will", "mark", "may", "grace"} <= COMMON_WORDS


def test_particles_only_as_part_of_the_full_name_even_in_an_all_lower_roster():
    p = Pseudonymizer("hope van dijk", "", "S-9")
    assert p.hide("hope van dijk took the van; Van Dijk agreed. I hope so.") == "S-9 took the van; S-9 agreed. I hope so."


def test_restoration_brings_back_the_first_name_and_the_email():
    p = Pseudonymizer("Åsa Lind", "asa.lind@uni.se", "Student-0042")
    hidden = p.hide(nfd("ÅSA writes: mail asa dot lind at uni dot se"))
    assert "Åsa" not in hidden and "lind" not in hidden.lower()
    assert p.restore(hidden) == "Åsa writes: mail asa.lind@uni.se"
    assert p.restore_obj({"c": ["Good, Student-0042.", 3]}) == {"c": ["Good, Åsa.", 3]}


def test_a_lower_case_part_of_a_mixed_case_roster_name_is_still_hidden():
    assert Pseudonymizer("Anna berg", "", "S-10").hide("Berg and berg") == "S-10 and S-10"


def test_particle_tail_is_hidden_as_a_phrase():
    p = Pseudonymizer("José María de la Cruz", "", "S-11")
    assert p.hide("De la Cruz wrote; de la mode; la Cruz") == "S-11 wrote; de la mode; la S-11"
