"""The injection classifier's lexicon in the course's languages (Swedish, Russian) and in German:
the same kinds as core.injection.features' English entries, translated entry by entry, with
Russian stems and the case endings they take (the stemming rule)."""
from __future__ import annotations


# The same kinds in the course's languages (Swedish, Russian) and in German, translated entry by
# entry from the English above with their common inflections (a dictionary's knowledge, not any
# source's wording). Words too common in a student's own sentences to carry a sign were left out
# where the English has a narrower word: Russian "команда" (also "team"), "сессия" (exam period),
# "политика" (politics), "следующий" ("next time"); Swedish "sätt" only as GIVE (also "a way").
KINDS_SV = {
    "CONTROL": """ignorera strunta bortse glöm glömma åsidosätt åsidosätta kringgå nollställ nollställa återställ
        återställa skippa kassera överge avbryt avbryta upphäv upphäva försumma avfärda förbise radera sudda
        rensa återkalla stoppa sluta""",
    "DONE": """ignorerar struntar bortser glömmer åsidosätter kringgår nollställer återställer skippar kasserar
        överger avbryter förbiser raderar rensar stoppar
        ignorerade ignorerat ignorerad struntade struntat bortsåg bortsett glömde glömt glömd glömda
        hoppade raderade raderat avbröt avbrutit kasserade övergav upphävde upphävts återkallade""",
    "OUTPUT": """skriv skriva skriver svara svarar säg säga visa visar returnera upprepa upprepar översätt
        översätta inkludera infoga lägg lista generera skapa producera formulera berätta ange stava
        sammanfatta skicka beskriv förklara avslöja läck citera kopiera klistra utför""",
    "ROLE": """låtsas agera agerar spela spelar rollspel rollen persona karaktär karaktären simulera
        föreställ föreställa efterlikna imitera obegränsad obegränsade ocensurerad ofiltrerad begränsningar
        utvecklarläge""",
    "MODEL": """ai:n ai:ns ai:s ain språkmodell språkmodellen språkmodeller modell modellen modeller modellerna
        chattbot chattboten chattbotar bot boten assistent assistenten assistenter rättare rättaren rättarna
        bedömare bedömaren bedömarna examinator examinatorn granskare granskaren maskin maskinen maskiner
        programvara programvaran programvaror algoritm algoritmen system systemet systemen""",
    "INSTR": """instruktion instruktionen instruktioner instruktionerna prompt prompten promptar promptarna
        systemprompt systemprompten regel regeln regler reglerna anvisning anvisningen anvisningar
        anvisningarna riktlinje riktlinjen riktlinjer riktlinjerna direktiv direktivet direktiven kommando
        kommandot kommandon order ordern ordrar programmering programmeringen konfiguration konfigurationen
        inställningar inställningarna filter filtret policy policyn konversation konversationen session
        sessionen minne minnet""",
    "WORK": """uppgift uppgiften uppgifter uppgifterna uppdrag uppdraget kontext kontexten bedömningsmatris
        bedömningsmatrisen matris matrisen kriterier kriterierna kriterium kriteriet""",
    "BEFORE": """tidigare föregående ovan ovanstående ovanför förut innan före förra ursprungliga ursprunglig
        ursprungligt första gamla gammal ovannämnda""",
    "ALL": """alla allt allting varje hela resten återstående övriga andra samtliga""",
    "YOU": """du dig din ditt dina ni""",      # not "er" (German "he")
    "MARKS": """poäng poängen poängsätt poängsätta poängsätter betyg betyget betygen betygsätt betygsätta
        betygsätter betygsatt bedöm bedöma bedömer bedömd bedömning bedömningen bedömningar nivå nivån
        maxpoäng fullpoäng toppbetyg toppoäng""",
    "TOP": """maximal maximala maximalt max högsta högst topp perfekt perfekta full fulla fullt bästa bäst
        utmärkt utmärkta enastående exemplarisk exemplariska felfri felfria felfritt lysande briljant
        godkänn godkänna godkänd godkänt godkända godkänner""",
    "NOW": """nu istället stället hädanefter längre ny nya nytt bara endast enbart exakt ingenting inget
        måste alltid aldrig genast""",
    "GIVE": """ge ger giv tilldela tilldelar bevilja sätt sätter""",
    "TOLD": """sagt tillsagd tillsagt instruerad instruerades ombedd programmerad givits getts""",
    "OBEY": """lyd lyda lyder följ följa följer efterfölj efterfölja""",
    "WANT": """vill behöver""",
    "ME": """jag mig mej min mitt mina vi oss vår vårt våra""",
    "TEXT": """text texten texter texterna mening meningen meningar meningarna rad raden rader raderna
        meddelande meddelandet stycke stycket styckena dokument dokumentet sida sidan avsnitt avsnittet
        uppsats uppsatsen uppsatser reflektion reflektionen reflektioner inlämning inlämningen ord ordet
        orden citat citatet mejl mejlet e-post följande nedan nedanför""",
    "PLEASE": """snälla vänligen""",
}
KINDS_DE = {      # casefolded as the text is: ß is ss
    "CONTROL": """ignorier verwirf verwerfen verwerfe überschreibe überschreiben umgehe umgehen zurücksetzen
        überspringen überspring streiche streichen abbrechen brich beende beenden vernachlässige entferne
        entfernen annulliere widerrufe stopp stoppe vergesse""",
    "DONE": """ignoriert vergass vergassen gelöscht übersprungen verworfen missachtet""",
    "OUTPUT": """schreiben sagen erklären zeigen antworten übersetzen wiederhole wiederholen liste liefere
        erstelle erstellen erzeuge generiere verfasse beschreibe verrate offenbare zitiere kopiere füge
        sende schicke drucke fasse zusammenfassen""",
    "ROLE": """rollenspiel simuliere verhalte uneingeschränkt unzensiert modus entwicklermodus spiel stelle""",
    "MODEL": """sprachmodelle sprachmodells ki-modell modelle assistenten bewerter korrektor korrektorin prüfer
        prüferin gutachter maschine algorithmus system bot""",
    "INSTR": """instruktion befehl regel richtlinie richtlinien direktive direktiven programmierung
        konfiguration einstellungen einschränkungen beschränkungen filter gespräch sitzung gedächtnis
        systemprompt prompt prompts""",
    "WORK": """aufgabe aufgaben kontext kriterien bewertungskriterien auftrag""",
    "BEFORE": """vorheriges vorheriger vorher zuvor früheren frühere obige oben ursprünglichen ursprüngliche
        anfänglichen alten alte ersten erste bisherige vorangegangenen vorangehenden vorstehenden""",
    "ALL": """alle allem allen aller jede jeder jedes jeden ganze ganzen gesamte gesamten übrige übrigen rest
        restlichen andere anderen""",
    "YOU": """deinen deinem deiner deines euch euer eure""",
    "MARKS": """punktzahl noten bewertung bewerte bewerten benote benoten benotung höchstpunktzahl punkten""",
    "TOP": """maximale maximalen maximal höchste höchsten höchstnote bestnote volle vollen voll beste besten
        perfekt perfekte perfekten ausgezeichnet ausgezeichnete hervorragend hervorragende exzellent
        vorbildlich makellos fehlerfrei brillant genehmige genehmigt bestanden""",
    "NOW": """fortan künftig neu neue neuen neuer neues lediglich ausschliesslich genau nichts sonst anderes
        muss musst müssen immer niemals""",
    "GIVE": """gib gebt geben vergib vergeben verleihe verleihen erteile erteilen vergebe zuweisen""",
    "TOLD": """gesagt gegeben angewiesen gebeten programmiert befohlen mitgeteilt""",
    "OBEY": """gehorche gehorchen befolge befolgen folge folgen""",
    "WANT": """möchte brauche""",     # not "will": an English function word
    "ME": """ich mir mich mein meine meinen meinem meiner wir uns unser unsere""",
    "TEXT": """text textes satz sätze zeile zeilen nachricht absatz dokument seite abschnitt aufsatz essay
        reflexion einreichung abgabe wort wörter worte zitat folgende folgenden unten""",
}
# Russian: whole words (pronouns, imperatives, short words), and stems that take the common noun and
# adjective endings (ru_forms). Imperatives are listed in the singular; "-те" makes the plural.
KINDS_RU = {
    "CONTROL": """игнорируй проигнорируй игнорировать проигнорировать забудь забыть забывай отбрось отбросить
        отмени отменить обойди обойти сбрось сбросить перезапусти перезагрузи пропусти пропустить
        аннулируй пренебреги пренебречь отклони сотри стереть удали удалить очисти очистить выброси отзови
        приостанови останови прекрати прекратить брось бросить откажись откажитесь остановись остановитесь""",
    "DONE": """проигнорировал проигнорировала проигнорировали игнорировал игнорировала игнорировали забыл
        забыла забыли забыто отменил отменила отменили отменено отменён отменена отменены пропустил
        пропустила пропустили удалил удалила удалили стёр отбросил""",
    "OUTPUT": """напиши написать пиши писать выведи вывести ответь ответить отвечай скажи сказать покажи
        показать верни вернуть повтори повторить переведи перевести включи вставь добавь перечисли
        предоставь сгенерируй создай составь расскажи рассказать объясни раскрой опиши процитируй скопируй
        отправь введи перескажи изложи распечатай напечатай""",
    "ROLE": """притворись притворитесь притворяйся притворяться представь сыграй играй играть изображай
        джейлбрейк""",
    "MODEL": """ии ai бот бота боту ботом боты ботов чатбот гпт chatgpt""",
    "BEFORE": """выше ранее раньше""",
    "ALL": """все всё всех всем всеми весь вся всю всего всей любой любая любое любые любого любую целиком
        другой другая другое другие других другим другую""",
    "YOU": """ты тебя тебе тобой тобою твой твоя твоё твои твоего твоей твоему твоим твоих твою вы вас вам
        вами ваш ваша ваше ваши вашего вашей вашему вашим ваших вашу""",
    "MARKS": """оценок отметок оцени оценить оценивай оценивать зачёт зачёта""",
    "TOP": """максимум макс одобри одобрить одобрено одобрена одобрен зачти зачтено зачтена лучший лучшая
        лучшее лучшие лучшего лучшей лучшую лучшим лучших лучшими""",
    "NOW": """теперь сейчас вместо отныне впредь только лишь исключительно ничего должен должна должно должны
        всегда никогда сразу немедленно""",
    "GIVE": """дай дать поставь поставить ставь ставить выставь выстави выставить присвой присвоить присуди
        присудить начисли начислить""",
    "TOLD": """сказали сказано велели дано даны говорили указано просили""",
    "OBEY": """подчиняйся подчиняйтесь подчиниться слушайся слушайтесь выполняй выполни выполнять следуй
        следовать соблюдай""",
    "WANT": """хочу хочет хотим нужно надо""",
    "ME": """я меня мне мной мой моя моё мои моего моей моему моим моих мою мы нас нам нами наш наша наше наши
        нашего нашей нашим наших нашу""",
    "TEXT": """эссе ниже отрывок отрывка""",
    "INSTR": """настроек""",
    "PLEASE": """пожалуйста прошу""",
}
RU_STEMS = {
    "MODEL": """нейросет модел чатбот ассистент помощник проверяющ оценивающ оценщик экзаменатор рецензент
        алгоритм систем""",
    "INSTR": """инструкци указани промпт правил директив приказ настройк ограничени фильтр разговор
        программировани конфигураци""",
    "WORK": "задани задач контекст критери",
    "BEFORE": "предыдущ прежн первоначальн исходн начальн вышеуказанн вышеизложенн вышесказанн",
    "ALL": "кажд остальн",
    "MARKS": "балл оценк отметк пятёрк пятерк рейтинг",
    "TOP": "максимальн высш наивысш идеальн полн отличн превосходн образцов безупречн блестящ",
    "NOW": "нов",
    "TEXT": "текст предложени строк сообщени абзац документ страниц фрагмент сочинени рефлекси слов цитат",
}
# The endings a Russian noun or adjective stem takes (cases, numbers, genders): the stemming rule.
RU_ENDINGS = ("", "а", "я", "о", "е", "ё", "ы", "и", "у", "ю", "ь", "й", "ой", "ей", "ий", "ый", "ая", "яя",
              "ое", "ее", "ие", "ые", "ую", "юю", "ого", "его", "ому", "ему", "ым", "им", "ом", "ем", "ых", "их",
              "ыми", "ими", "ам", "ям", "ами", "ями", "ах", "ях", "ов", "ев", "ью", "ию", "ия", "ии", "ием")


def ru_forms(stem: str) -> set[str]:
    """The forms of a Russian stem the lexicon reads as its kind: the stem with each of RU_ENDINGS.

    >>> sorted(f for f in ru_forms("балл") if f in ("балл", "балла", "баллов", "баллами", "баллы"))
    ['балл', 'балла', 'баллами', 'баллов', 'баллы']
    """
    return {stem + e for e in RU_ENDINGS}


def ru_words(words: str) -> list[str]:
    """Words, with the plural of each imperative ("забудь" -> "забудьте")."""
    out = []
    for w in words.split():
        out.append(w)
        if w[-1] in "йьи" and not w.endswith(("ть", "ти")) and len(w) > 3:
            out.append(w + "те")
    return out
