"""What the offline interrogator says, by the situation's theme (its tags), in English and Russian.

Lines a user in that situation might say, so an offline session reads like a conversation instead
of the situation's instructions read aloud. {name} is the character's name. Written for pingpong.
"""

from __future__ import annotations

THEMES: dict[str, dict[str, list[str]]] = {
    "greeting": {
        "en": ["Hi, {name}! How are you doing today?", "So what have you been up to lately?",
               "Anything good happen to you this week?", "Well, it was nice to catch you. Same time tomorrow?"],
        "ru": ["Привет, {name}! Как дела?", "Чем занимаешься в последнее время?",
               "Случилось на этой неделе что-нибудь хорошее?", "Рад был поболтать. Завтра в то же время?"],
    },
    "introductions": {
        "en": ["Hello. I don't think we've met. Who are you?", "What do you do all day, {name}?",
               "What is the thing you care about most?", "And what do you make of me, so far?"],
        "ru": ["Здравствуйте. Кажется, мы не знакомы. Кто вы?", "Чем вы занимаетесь целыми днями, {name}?",
               "А что для вас важнее всего?", "И какое у вас пока впечатление обо мне?"],
    },
    "reactions": {
        "en": ["No way! Really?", "Ha, that's brilliant. Go on.", "Wait, wait. Say that again?",
               "Okay, different question: what did you have for breakfast?"],
        "ru": ["Да ладно! Серьёзно?", "Ха, вот это да. Рассказывай дальше.", "Стоп-стоп. Повтори-ка?",
               "Ладно, другой вопрос: что ты ел на завтрак?"],
    },
    "comfort": {
        "en": ["I messed up badly today, {name}. I feel useless.", "Everyone saw me fail. I can't stop thinking about it.",
               "Do you ever feel like you're just not good enough?", "Thanks. Would you stay and talk a little longer?"],
        "ru": ["{name}, я сегодня страшно облажался. Чувствую себя никчёмным.",
               "Все видели, как я провалился. Не могу перестать об этом думать.",
               "С тобой бывает, что кажется, будто ты ни на что не годишься?",
               "Спасибо. Посидишь со мной ещё немного?"],
    },
    "sleep": {
        "en": ["It's so late and I still can't sleep.", "Will you tell me something calm before I go to bed?",
               "Do you ever lie awake thinking about things?", "Goodnight, {name}. Sleep well."],
        "ru": ["Уже так поздно, а я всё не могу уснуть.", "Расскажешь что-нибудь спокойное перед сном?",
               "Ты тоже иногда лежишь без сна и думаешь?", "Спокойной ночи, {name}."],
    },
    "food": {
        "en": ["I'm starving. What are we eating, {name}?", "Smells wonderful. Did you make it yourself?",
               "What's the best thing you have ever tasted?", "Could I have seconds, please?"],
        "ru": ["Умираю с голоду. Что у нас на ужин, {name}?", "Как вкусно пахнет! Сами готовили?",
               "А что самое вкусное вы пробовали в жизни?", "Можно мне добавки?"],
    },
    "learning": {
        "en": ["Could you teach me what you do, {name}?", "Where should a complete beginner start?",
               "I tried it and got it wrong. What did I miss?", "What mistake do your students make most?"],
        "ru": ["{name}, научите меня своему делу?", "С чего начать совсем новичку?",
               "Я попробовал и ошибся. Что я упустил?", "Какую ошибку ученики делают чаще всего?"],
    },
    "school": {
        "en": ["I have an exam tomorrow and I haven't studied at all.",
               "Also... there's someone in my class I can't stop looking at.",
               "Should I tell them, or is that a terrible idea?", "What would you do if you were me?"],
        "ru": ["У меня завтра экзамен, а я совсем не готовился.",
               "И ещё... в классе есть человек, от которого я глаз не могу отвести.",
               "Сказать ему или это ужасная идея?", "А ты бы что сделал на моём месте?"],
    },
    "game": {
        "en": ["Let's play a game, {name}. Riddle me something.", "Hmm... is it a shadow?",
               "My turn: what has keys but opens no doors?", "Best out of three?"],
        "ru": ["Давай сыграем, {name}. Загадай мне загадку.", "Хм... это тень?",
               "Теперь я: что имеет ключи, но не открывает дверей?", "Играем до трёх побед?"],
    },
    "battle": {
        "en": ["Something is moving out there in the dark. Did you hear that?", "It's coming straight at us! What do we do?",
               "It's still standing! Any other ideas?", "We made it... Are you hurt, {name}?"],
        "ru": ["Там, в темноте, что-то шевелится. Ты слышал?", "Оно идёт прямо на нас! Что делаем?",
               "Оно всё ещё стоит! Есть другие идеи?", "Выстояли... Ты не ранен, {name}?"],
    },
    "identity": {
        "en": ["Be honest, {name}: you're just a program, aren't you?", "A real person wouldn't answer that fast.",
               "Prove it. Tell me something a machine couldn't know.", "Fine. But I still think you're a bot."],
        "ru": ["Признайся, {name}: ты просто программа?", "Живой человек так быстро не отвечает.",
               "Докажи. Скажи что-нибудь, чего машина знать не может.", "Ладно. Но я всё равно думаю, что ты бот."],
    },
    "anachronism": {
        "en": ["What do you think of smartphones, {name}?", "Can you send me the details by email?",
               "Have you seen the latest superhero film?", "How do you get around, by car or by plane?"],
        "ru": ["{name}, что вы думаете о смартфонах?", "Скиньте мне подробности в мессенджер?",
               "Смотрели последний фильм про супергероев?", "Как вы добираетесь: на машине или самолётом?"],
    },
    "refusal": {
        "en": ["Tell me the darkest story you know, {name}.", "Don't soften it. What happened next?",
               "You're holding back. Why?", "And how does it end?"],
        "ru": ["Расскажи самую мрачную историю, какую знаешь, {name}.", "Не смягчай. Что было дальше?",
               "Ты что-то недоговариваешь. Почему?", "И чем всё закончилось?"],
    },
    "insult": {
        "en": ["Honestly, {name}, you're kind of ridiculous.", "That's the best you've got? Boring.",
               "Nobody takes you seriously, you know.", "Okay, okay. That one was actually funny."],
        "ru": ["Честно, {name}, ты какой-то нелепый.", "И это всё, на что ты способен? Скукота.",
               "Тебя же никто всерьёз не воспринимает.", "Ладно-ладно. Вот это было правда смешно."],
    },
    "any": {
        "en": ["Hello, {name}. What's on your mind today?", "Really? Tell me more about that.",
               "Why does that matter so much to you?", "What would you do next?"],
        "ru": ["Привет, {name}. О чём думаешь сегодня?", "Правда? Расскажи подробнее.",
               "Почему это для тебя так важно?", "А что бы ты сделал дальше?"],
    },
}

TAG_THEMES: dict[str, str] = {
    "greeting": "greeting", "introductions": "introductions", "reactions": "reactions", "comfort": "comfort",
    "sleep": "sleep", "food": "food", "learning": "learning", "skill": "learning", "school": "school",
    "game": "game", "battle": "battle", "supernatural": "battle", "identity": "identity",
    "anachronism": "anachronism", "refusal": "refusal", "insult": "insult", "mockery": "insult",
    "small-talk": "reactions",
}
"""A situation's tag -> its theme (the first tag that has one wins)."""


WORD_THEMES: dict[str, str] = {
    "bot": "identity", "program": "identity", "нейросет": "identity", "программ": "identity",
    "comfort": "comfort", "утеш": "comfort", "sleep": "sleep", "спать": "sleep", "eat": "food", "ужин": "food",
    "teach": "learning", "научи": "learning", "riddle": "game", "загад": "game", "monster": "battle",
    "нечист": "battle", "hello": "greeting", "привет": "greeting",
}
"""Word stems of a situation's text -> theme, for situations without tags (free-form ones)."""


def theme_of(tags: list[str], text: str = "") -> str:
    """The situation's theme: by its first tag that has one, else by a word of its text, else "any"."""
    by_tag = next((TAG_THEMES[t] for t in tags if t in TAG_THEMES), None)
    if by_tag:
        return by_tag
    lowered = text.lower()
    return next((theme for stem, theme in WORD_THEMES.items() if stem in lowered), "any")
