package io.rkllm.rag;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Recognises conversational follow-ups, which must not be answered from whatever fresh search
 * results came with them: acknowledgements ("thanks!"), requests to continue ("tell me more", "why?")
 * and requests about the previous answer ("translate that", "what did you mean by...").
 */
final class FollowUpDetector {

    enum Kind {
        /** Not a follow-up (or no previous answer to follow). */
        NONE,
        /** "thanks", "ok", "great": needs no retrieved text at all. */
        ACKNOWLEDGEMENT,
        /** "tell me more", "why?", "go on": continues the previous answer's topic. */
        CONTINUATION,
        /** "translate that", "summarize your answer", "what did you mean": works on the previous answer. */
        ABOUT_ANSWER
    }

    private static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;

    private static final Pattern ACK = Pattern.compile("^(?:(?:"
            + "thanks?(?: you)?(?: (?:so|very) much)?(?: a lot)?|thx|ty|tysm|cheers|ok(?:ay)?|k|great|cool|nice|perfect|awesome"
            + "|excellent|good|very good|good job|well done|got it|understood|i see|makes sense|sounds good|that helps|helpful"
            + "|that'?s (?:great|helpful|perfect|it|all)|yes|yeah|yep|no|nope|sure|alright|all right|wow|lol|fine|done|right|correct"
            + "|merci(?: beaucoup)?|d'accord|parfait|super|génial|danke(?: schön| sehr)?|alles klar|gut|prima|gracias|vale|perfecto"
            + "|obrigad[oa]|valeu|beleza|grazie|perfetto|bene|spasibo|спасибо|дякую|ok thanks|okay thanks|great thanks|thanks again"
            + "|谢谢|謝謝|多谢|多謝|好的|好|明白了|了解|收到|ありがとう(?:ございます)?|了解です|わかりました|감사합니다|고마워"
            + ")[\\s,.!?~:;)(*^_-]*)+(?:\\p{So}|\\p{Sk}|[\\s!.])*$", FLAGS);

    private static final Pattern CONTINUE = Pattern.compile("^(?:"
            + "(?:please |can you |could you )?(?:tell me more|say more|more|more details?|more info(?:rmation)?|go on|continue|keep going"
            + "|elaborate|expand(?: on (?:that|this|it))?|explain (?:more|further|that|this|it)(?: (?:more|further|in (?:more )?detail))?"
            + "|go deeper|in more detail|details?|and\\??|and then|then what|why|why so|how so|how come|really|such as|for example"
            + "|examples?|like what|what else|anything else|what about (?:it|that|this)|continue please)"
            + "(?: (?:about (?:it|that|this|them)|please|pls))?"
            + "|dis-m'en plus|continue|continuez|pourquoi|erzähl mir mehr|weiter|warum|cuéntame más|continúa|por qué|me conte mais|continue|por quê"
            + "|继续|繼續|详细说说|詳細說說|多说一点|多說一點|为什么|為什麼|然后呢|然後呢|続けて|もっと詳しく|なぜ"
            + ")[\\s?!.。？！]*$", FLAGS);

    private static final Pattern ABOUT_ANSWER = Pattern.compile(
            "\\b(?:your|the|that|this) (?:previous |last |above |earlier |first )?(?:answer|response|reply|explanation|summary|list)\\b"
            + "|\\byou (?:just )?(?:said|mentioned|wrote|told me|listed|meant|suggested)\\b|\\bwhat (?:do|did) you mean\\b"
            + "|^(?:please |can you |could you )?(?:translate|summari[sz]e|shorten|rephrase|reword|simplify|rewrite|paraphrase|condense|format)"
            + "(?: (?:that|this|it|the above))?\\b|\\b(?:in|into|to) (?:simpler|plain|simple) (?:terms|words|english)\\b|\\beli5\\b"
            + "|^(?:are you sure|is that (?:true|right|correct)|really\\?)|\\b(?:make|write) (?:it|that|this) (?:shorter|longer|simpler|clearer)\\b"
            + "|\\b(?:point|item|step|number) (?:\\d+|one|two|three|four|five)\\b(?! of the)"
            + "|\\b(?:ta|votre) (?:réponse|dernière réponse)\\b|\\bdeine (?:antwort|letzte antwort)\\b|\\btu (?:respuesta|última respuesta)\\b"
            + "|\\bsua (?:resposta|última resposta)\\b|翻译|翻譯|总结一下|總結一下|你(?:刚才|剛才)说|上面的回答|你的回答|前の回答|翻訳して",
            FLAGS);

    Kind classify(String question, String previousAnswer) {
        if (previousAnswer == null || previousAnswer.isBlank() || question == null) {
            return Kind.NONE;
        }
        String q = question.strip().toLowerCase(Locale.ROOT);
        if (q.isEmpty()) {
            return Kind.NONE;
        }
        if (q.length() <= 60 && ACK.matcher(q).matches()) {
            return Kind.ACKNOWLEDGEMENT;
        }
        if (q.length() <= 60 && CONTINUE.matcher(q).matches()) {
            return Kind.CONTINUATION;
        }
        if (q.length() <= 200 && ABOUT_ANSWER.matcher(q).find()) {
            return Kind.ABOUT_ANSWER;
        }
        return Kind.NONE;
    }
}
