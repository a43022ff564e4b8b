package io.rkllm.rag;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;

/**
 * Function words ("stopwords") of several languages. Running prose has a high share of them (about
 * 40-50% of the words of English, French, Spanish, Portuguese or German text), while menus, link
 * lists, tags and headlines have few. For Chinese and Japanese, where words are not separated by
 * spaces, the share of grammatical characters (Chinese particles, Japanese hiragana) plays that role.
 */
final class FunctionWords {
    private FunctionWords() {
    }

    private static final Set<String> LATIN = Set.copyOf(Arrays.asList(String.join(" ",
            // English
            "a about above after again against all am an and any are as at be because been before being",
            "below between both but by can could did do does doing down during each few for from further",
            "had has have having he her here hers herself him himself his how i if in into is it its itself",
            "just me more most my myself no nor not now of off on once only or other our ours ourselves out",
            "over own same she should so some such than that the their theirs them themselves then there",
            "these they this those through to too under until up very was we were what when where which",
            "while who whom why will with would you your yours yourself also many much may might must",
            "shall since though whether yet upon onto its it's don't can't isn't that's there's",
            // French
            "au aux avec ce ces cette dans de des du elle elles en est et eux il ils je la le les leur leurs",
            "lui ma mais me même mes moi mon ne nos notre nous on ou où par pas pour qu que qui sa se ses",
            "son sont sur ta te tes toi ton tu un une vos votre vous été être avait avoir était sont aussi",
            "comme plus très tout tous toute toutes cela ça ont fait peut sans sous entre alors donc car",
            // Spanish
            "el los las del al lo un una unos unas y o pero si no es son fue era ser estar está están como",
            "para por con sin sobre entre hasta desde cuando donde que quien cual muy más menos ya también",
            "su sus le les se mi mis tu te nos yo él ella ellos ellas este esta estos estas ese esa eso hay",
            // Portuguese
            "o os as um uma uns umas do da dos das no na nos nas ao aos pelo pela pelos pelas em e ou mas",
            "é são foi era ser estar está estão como para por com sem sobre entre até desde quando onde que",
            "quem qual muito mais menos já também seu sua seus suas ele ela eles elas este esta isso isto",
            "esse essa não se lhe lhes nós eu você tem têm ter há foram ainda depois",
            // German
            "der die das den dem des ein eine einer eines einem einen und oder aber nicht ist sind war waren",
            "sein hat haben wird werden wurde mit von zu zum zur im in an am auf aus bei für nach über unter",
            "vor durch als wie wenn dass auch noch nur schon sehr es er sie wir ihr ich man sich auch kann",
            "dieser diese dieses so um bis",
            // Italian
            "il lo gli i la le un uno una di del della dei delle degli da dal dalla in nel nella con su per",
            "tra fra che chi non è sono era erano essere ha hanno ho come anche più ma se perché questo",
            "questa quello quella ci si ne loro lui lei",
            // Dutch
            "de het een en van in is dat die op te zijn met voor niet aan er maar om ook als bij door",
            "naar dan wat werd wordt hij zij ze we wij ik je u kan nog over uit tot",
            // Czech / Slovak
            "a v se na je že to s z do o i k jako ale by za po jsou byl tak jeho od pro které který která ve ze",
            "podle jak už také jen při než této tento má mezi bylo byla není jsem nebo aby když sa sú pri ako",
            // Polish
            "w na z do nie się to że o jest jak po co tak za od ale przez przy jego jej ich dla czy już tylko",
            "był była było są może oraz lub także który która które tym tej ten ta te",
            // Swedish / Danish / Norwegian
            "och att det som en på är av för med till har inte om ett han men var jag sig från vi så kan",
            "og til af ikke der på som med er den for at har jeg et han var",
            // Indonesian / Malay, Turkish
            "yang dan di dari ini itu dengan untuk dalam tidak akan pada juga ke ada oleh atau karena sebagai",
            "mereka bisa telah sudah ve bir bu da için ile olarak gibi daha çok ne ama kadar olan sonra",
            // Russian / Ukrainian
            "и в не на я что он с как а то все она так его но да ты к у же вы за бы по только ее мне было от",
            "меня еще нет о из ему когда даже ли если уже или ни быть был до вас там себя ей может они тут где",
            "есть для мы их чем была без чего тоже себе под будет кто этот того потому этого какой при после",
            "над больше тот через эти нас про всего них много это также который которые которая і та що як але").split("\\s+")));

    /** Common grammatical characters of written Chinese (traditional and simplified). */
    private static final String CHINESE_PARTICLES =
            "的了是在和有我不也就都這这个個們们他她它你之與与而及或但被把從从到對对為为以於于其此著着很會会"
            + "能要可沒没所如還还只又再等給给讓让向過过地得吧呢嗎吗啊那哪些並并更最已自因若則则卻却";

    private static final Set<String> OPENERS = Set.copyOf(Arrays.asList(("what which who whom whose when where why how is are was were do does did "
            + "can could would should will shall may might have has had tell explain describe give list show compare find "
            + "summarize summarise write name please define calculate translate according in on at for from the a an "
            + "qué cómo cuál cuándo dónde quién quel quelle quels quelles comment pourquoi où quand qui que "
            + "was wie wer wann wo welche welcher welches warum o a os as quais qual quando onde quem como porque").split(" ")));

    /** A word that commonly opens a question or instruction (safe to lower-case after "According to the above,"). */
    static boolean isCommonOpener(String word) {
        return OPENERS.contains(word.toLowerCase(Locale.ROOT));
    }

    static boolean isFunctionWord(String lowerWord) {
        return LATIN.contains(lowerWord);
    }

    static boolean isChineseParticle(int cp) {
        return cp < 0x10000 && CHINESE_PARTICLES.indexOf((char) cp) >= 0;
    }

    /**
     * Density of function words in a line, on a scale where running prose of any supported language
     * scores about 0.35-0.55 and navigation scores below 0.2.
     */
    static double density(String text) {
        int latinWords = 0;
        int latinFunction = 0;
        int cjk = 0;
        int hiragana = 0;
        int particles = 0;
        StringBuilder word = new StringBuilder();
        for (int i = 0; i <= text.length(); ) {
            int cp = i < text.length() ? text.codePointAt(i) : ' ';
            i += i < text.length() ? Character.charCount(cp) : 1;
            if (Scripts.isCjk(cp)) {
                cjk++;
                if (Scripts.isHiragana(cp)) {
                    hiragana++;
                } else if (isChineseParticle(cp)) {
                    particles++;
                }
            }
            if (!Scripts.isCjk(cp) && (Character.isLetterOrDigit(cp) || cp == '\'' || cp == '’')) {
                word.appendCodePoint(cp == '’' ? '\'' : cp);
            } else if (!word.isEmpty()) {
                String w = word.toString().toLowerCase(Locale.ROOT);
                word.setLength(0);
                if (w.chars().anyMatch(Character::isLetter)) {
                    latinWords++;
                    if (isFunctionWord(w)) {
                        latinFunction++;
                    }
                }
            }
        }
        if (latinWords == 0 && cjk == 0) {
            return 0;
        }
        double cjkScore = 0;
        if (cjk > 0) {
            // Japanese prose is ~45-60% hiragana; Chinese prose has ~15-25% particles.
            double ja = hiragana / (double) cjk;
            double zh = particles / (double) cjk;
            cjkScore = Math.max(ja * 0.85, zh * 2.0);
            cjkScore = Math.min(cjkScore, 0.6);
        }
        double latinScore = latinWords == 0 ? 0 : latinFunction / (double) latinWords;
        // weigh by share of text: a CJK character is about half a Latin word of text
        double wl = latinWords;
        double wc = cjk / 2.0;
        return (latinScore * wl + cjkScore * wc) / (wl + wc);
    }
}
