package io.rkllm.rag;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Boilerplate vocabulary in several languages (English, French, Spanish, Portuguese, German,
 * Italian, Dutch, Russian, Chinese, Japanese, Korean): widget labels that make up a whole line, phrases that mark consent
 * banners, newsletter boxes and footers, and the markers of a comment section.
 */
final class Boilerplate {
    private Boilerplate() {
    }

    private static final int FLAGS = Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;

    /** Whole-line widget and navigation labels (matched against the normalised line). */
    private static final Pattern LABEL = Pattern.compile("^(?:"
            // English
            + "share|shares|share (?:this|on|via|to|article|story|post|page|link)\\b.*|shared|tweet|tweets|email|e-mail|mail|print"
            + "|print this(?: article| page)?|comment|comments|add (?:a )?comment|post (?:a )?comment|view comments|show comments"
            + "|reply|replies|all replies|report|flag|flagged|like|likes|unlike|follow|following|followers|subscribe|subscribe now|unsubscribe"
            + "|sign in|sign up|sign out|log in|login|logout|log out|register|join|join now|my account|account|profile|edit profile"
            + "|menu|main menu|open menu|close menu|toggle navigation|navigation|search|search for|close|open|toggle|expand|collapse"
            + "|home|homepage|skip to (?:main )?content|skip to navigation|skip navigation|jump to navigation|back to top|top|go to top"
            + "|next|previous|prev|newer|older|next page|previous page|next post|previous post|next article|previous article"
            + "|more|more\\.\\.\\.|read more|read full article|continue reading|continue reading the main story|learn more|see more|show more|load more"
            + "|view all|see all|view more|more stories|more news|more videos|watch more"
            + "|advertisement|advertising|advertise|advertise with us|ad|ads|sponsored|sponsored content|sponsored links|promoted|promoted links|paid partner|partner content"
            + "|related|related articles?|related stories|related posts?|related content|related links|related topics|recommended|recommended for you"
            + "|trending|trending now|most popular|most read|most viewed|popular|popular posts|top stories|latest|latest news|latest posts"
            + "|you may also like|you might also like|also on [a-z .]+|more from [^.!?]{1,40}|more on [^.!?]{1,40}|around the web|from the web|elsewhere on the web"
            + "|tags|tag|topics|categories|category|archives|archive|filed under|posted in|tagged|newsletter|newsletters|podcast|podcasts"
            + "|contact|contact us|about|about us|careers|jobs|help|faq|support|feedback|site map|sitemap|rss|rss feeds?|terms|privacy"
            + "|privacy policy|privacy notice|terms of (?:use|service)|terms and conditions|cookie policy|cookies|cookie settings|manage cookies"
            + "|accept|accept all|accept cookies|accept all cookies|reject|reject all|decline|manage preferences|manage settings|preferences"
            + "|ok|okay|got it|i agree|agree|cancel|submit|send|save|close this|dismiss|continue|loading|loading\\.\\.\\."
            + "|facebook|twitter|instagram|linkedin|pinterest|whatsapp|reddit|tumblr|youtube|telegram|messenger|pocket|flipboard|mastodon|threads"
            + "|google\\+|google plus|digg|stumbleupon|hacker news|copy link|copy url|link copied|copied|permalink|embed|bookmark|save for later|print article|email a friend"
            // code blocks' buttons
            + "|copy|copy code|copy to clipboard|copy snippet|copied to clipboard|copied!|copy code to clipboard|run|run code|try it|try it yourself|open in playground|open in colab|view source|view raw|raw|wrap|toggle line numbers"
            + "|font size|text size|listen|listen to this article|play|pause|play video|watch|video|photos|gallery|image|photo|view gallery"
            + "|published|updated|posted|by|written by|author|authors|editor|credits?|source|sources|via"
            // French
            + "|partager|partagez|partage|tweeter|imprimer|envoyer|commenter|commentaire|commentaires|réagir|répondre|signaler"
            + "|s'abonner|s’abonner|abonnez-vous|se connecter|connexion|s'inscrire|s’inscrire|inscription|déconnexion|mon compte|rechercher|recherche"
            + "|accueil|fermer|ouvrir|suivant|précédent|publicité|lire aussi|à lire aussi|lire la suite|voir aussi|voir plus|voir tout|en savoir plus"
            + "|sur le même sujet|mentions légales|politique de confidentialité|suivez-nous|nous suivre|contactez-nous|plan du site"
            // Spanish / Portuguese
            + "|compartir|compartilhar|compartilhe|compartilhe:|comentar|comentarios|comentários|comente|responder|denunciar|seguir"
            + "|suscríbete|suscribirse|assine|assinar|assinatura|entrar|sair|iniciar sesión|registrarse|cadastre-se|buscar|busca|pesquisar|pesquisa"
            + "|inicio|início|página inicial|publicidad|publicidade|anuncio|anúncio|leer más|lee también|leia mais|leia também|veja também"
            + "|saiba mais|ver más|ver mais|ver todas|ver todos|ver tudo|síguenos|siga|siga-nos|política de privacidad|política de privacidade"
            + "|relacionadas|relacionados|tópicos relacionados|notícias relacionadas|artigos relacionados|noticias relacionadas|artículos relacionados"
            + "|mais lidas.*|mais vistas.*|más leídas.*|más vistas.*|articles liés|à lire également|dans la même rubrique|les plus lus"
            + "|verwandte artikel|meistgelesen|articoli correlati|i più letti|(?:most read|most popular|most viewed|more) in [^.!?]{1,30}"
            + "|termos de uso|términos de uso|cerrar|fechar|volver|voltar|copiar link|copiar enlace|mais lidas|más leídas|últimas|últimas notícias|últimas noticias"
            // German / Italian / Dutch
            + "|teilen|drucken|kommentar|kommentare|antworten|melden|abonnieren|anmelden|abmelden|registrieren|suche|suchen|startseite"
            + "|werbung|anzeige|weiterlesen|mehr lesen|mehr zum thema|datenschutz|datenschutzerklärung|impressum|schließen|zurück|weiter"
            + "|condividi|commenta|commenti|rispondi|iscriviti|accedi|cerca|pubblicità|leggi anche|leggi di più|delen|reageer|reacties|zoeken"
            // Chinese
            + "|分享|分享到|转发|轉發|轉寄|转寄|登入|登录|登錄|註冊|注册|訂閱|订阅|搜尋|搜索|首頁|首页|廣告|广告|相關文章|相关文章|熱門文章|热门文章"
            + "|上一篇|下一篇|回覆|回复|留言|發表留言|发表留言|評論|评论|更多|返回頂部|返回顶部|收藏|檢舉|举报|悄悄話|推薦|推荐|讚|赞|打印|列印"
            // Russian, Korean
            + "|главная|войти|вход|выйти|регистрация|зарегистрироваться|подписаться|подписка|поиск|меню|поделиться|реклама"
            + "|комментарии|комментарий|ответить|читать далее|читайте также|читать также|похожие статьи|популярное|контакты|о нас"
            + "|홈|로그인|로그아웃|회원가입|검색|메뉴|공유|공유하기|댓글|답글|광고|관련 기사|관련기사|더보기|구독|이전 기사|다음 기사"
            // Japanese
            + "|シェア|ツイート|いいね|ログイン|ログアウト|新規登録|会員登録|検索|ホーム|トップ|メニュー|広告|関連記事|人気記事|次の記事|前の記事"
            + "|コメント|返信|もっと見る|続きを読む|お問い合わせ|プライバシーポリシー|利用規約|印刷|ブックマーク"
            + ")$", FLAGS);

    /** Phrases that mark widget, consent, newsletter and footer text wherever they appear in a short line. */
    private static final Pattern PHRASE = Pattern.compile(
            "\\bcookies?\\b.{0,40}\\b(?:policy|settings|preferences|consent|accept|use|uses|enable|enabled|notice|banner)\\b"
            + "|\\b(?:use|uses|accept|allow|enable|manage|reject|block)\\b.{0,20}\\bcookies\\b|\\b(?:manage|your|withdraw) consent\\b"
            + "|click to (?:share|email|print|view comments|comment)|^\\d+ ?comments?\\b|opens in (?:a )?new window|share (?:on|to|via) (?:facebook|twitter|linkedin|whatsapp|email|pinterest|reddit)"
            + "|follow us|like us on|find us on|join us on|connect with us|sign up for (?:our|the|free|email|e-mail)\\b|subscribe to (?:our|the)"
            + "|get (?:our|the) newsletter"
            + "|all rights reserved|\\(c\\) ?\\d{4}|© ?\\d{4}|copyright ©|copyright \\d{4}"
            + "|enable javascript|javascript is (?:disabled|required)|your browser does not support|browser is out of date|upgrade your browser"
            + "|skip to (?:main )?content|leave a (?:reply|comment)|your email address will not be published|required fields are marked"
            + "|notify me of|cancel reply|you must be logged in|log in to comment|sign in to comment|post a comment"
            + "|\\badblock\\b|whitelist (?:us|this site)|paid partner|affiliate link|we may earn a commission"
            + "|by (?:submitting|entering|providing) your (?:email|e-mail)|you agree to (?:our|the) (?:terms|privacy)"
            + "|tous droits réservés|politique de confidentialité|abonnez-vous|inscrivez-vous|suivez-nous"
            + "|todos os direitos reservados|todos los derechos reservados|assine a newsletter|receba (?:as|nossas)|siga-nos|síguenos"
            + "|alle rechte vorbehalten|tutti i diritti riservati|版權所有|版权所有|著作権|無断転載|禁止转载|禁止轉載",
            FLAGS);

    /** Widget phrases that also occur in prose ("powered by a V8 engine"): only condemn lines under 100 characters. */
    private static final Pattern SHORT_PHRASE = Pattern.compile(
            "advertisement|\\bad ?blockers?\\b|^(?:sponsored|presented|powered|brought to you) by\\b|\\bwhitelist(?:ed|ing)?\\b"
            + "|terms of (?:use|service)|privacy (?:policy|notice)|\\byour inbox\\b|\\bnewsletter\\b",
            FLAGS);

    /** Phrases so specific to consent banners and footers that they condemn even a long line. */
    private static final Pattern STRONG = Pattern.compile(
            "(?:we|this (?:web)?site|our (?:web)?site|our partners) (?:and our partners )?uses? cookies"
            + "|by (?:continuing to (?:use|browse)|using) (?:this|our) (?:web)?site|accept (?:all )?cookies|cookie (?:policy|settings|preferences)"
            + "|all rights reserved|tous droits réservés|todos os direitos reservados|todos los derechos reservados|alle rechte vorbehalten"
            + "|your email address will not be published|required fields are marked|版權所有|版权所有"
            + "|(?:disable|turn off|pause) (?:your )?ad ?blockers?|using an ad ?blocker"
            + "|utilise des cookies|utilizamos cookies|utiliza cookies|usa cookies|verwendet cookies"
            + "|pol[ií]tica de cookies|politique (?:de|relative aux|d'utilisation des) cookies|cookie-richtlinie|informativa sui cookie"
            + "|все права защищены|무단 ?전재 및 재배포 금지|저작권자",
            FLAGS);

    /** Headings that open a list of other articles (related, recommended, most read...). */
    private static final Pattern TEASER_HEADING = Pattern.compile("^(?:"
            + "related|related (?:articles?|stories|posts?|content|coverage|links|reading|news)|recommended|recommended (?:for you|stories|articles|reading)"
            + "|more (?:stories|news|articles|videos|from|on|in|like this).*|most (?:read|popular|viewed|shared|emailed).*|you (?:may|might) (?:also )?(?:like|enjoy).*"
            + "|read (?:next|more|also)|also (?:read|on).*|see also|what to read next|trending.*|popular (?:posts|stories|now)|top stories|latest (?:news|stories|posts)"
            + "|around the web|from the web|sponsored (?:stories|links|content)|promoted (?:stories|links)|editor'?s picks|don'?t miss"
            + "|(?:hot network|related|linked|similar|popular|trending|top|new|recent|unanswered) (?:questions|threads|discussions)|linked|people also ask"
            + "|vinculad[ao]s?|relacionad[ao]|enlazad[ao]s?|perguntas (?:relacionadas|em alta na rede)|preguntas (?:relacionadas|populares en la red)"
            + "|relacionad[ao]s|.*relacionad[ao]s|leia (?:mais|também)|veja também|mais lidas.*|lee también|más leídas.*|noticias relacionadas"
            + "|à lire aussi|lire aussi|sur le même sujet|les plus lus|voir aussi|dans la même rubrique|articles? similaires"
            + "|verwandte artikel|mehr zum thema|meistgelesen.*|das könnte sie auch interessieren|leggi anche|articoli correlati"
            + "|相關文章|相关文章|推薦文章|推荐文章|熱門文章|热门文章|延伸閱讀|延伸阅读|您可能會有興趣的文章|你可能感兴趣的文章|関連記事|人気記事|おすすめ記事"
            + ")[:.]?$", FLAGS);

    /** Headings that open a comment section. */
    private static final Pattern COMMENTS_HEADING = Pattern.compile("^(?:"
            + "(?:\\d+|no|one|two|three)?\\s*(?:comments?|responses?|replies|reactions|thoughts on .*|commentaires?|réactions|comentários?|comentarios|kommentare?|commenti|reacties)\\s*(?:\\([^)]{0,20}\\))?"
            + "|there (?:are|is) \\d+ comments?|leave a (?:reply|comment)|join the discussion.*|add (?:a|your) comment|post a comment|write a comment"
            + "|show comments|view comments|join the conversation|comments are closed|\\d+ ?replies"
            + "|留言列表.*|發表留言|发表留言|留言\\s*\\(\\d+\\)|評論\\s*\\(\\d+\\)|评论\\s*\\(\\d+\\)|コメント.*件|コメントを(?:書く|投稿)"
            + ")[:.]?$", FLAGS);

    /** A line that ends a comment ("Reply", "12 Reply", "回覆") or gives a comment's author and time. */
    private static final Pattern COMMENT_MARK = Pattern.compile(
            "^(?:\\d+\\s*)*(?:reply|répondre|responder|antworten|rispondi|beantwoorden|回覆|回复|返信)$"
            + "|^.{1,60}\\s(?:said|says|wrote|a dit|disse|dijo|schrieb)[:.]?$"
            + "|^.{0,40}(?:於|于)\\s*\\d{4}[/-]\\d{1,2}[/-]\\d{1,2}.*(?:回覆|回复)?$"
            + "|\\b(?:\\d{1,2}:\\d{2}(?::\\d{2})?\\s*(?:am|pm|utc|gmt)|\\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago)\\b.{0,16}$"
            + "|^(?:posted|submitted|written)\\b.{0,60}\\bby\\b.{1,40}$",
            FLAGS);

    /** Claims about the current date or time, stale by the time the model reads them. */
    private static final Pattern STALE_DATE = Pattern.compile(
            "^(?:today is|today:|current date|current time|date:|it is now|last updated:?|updated:?|aujourd'hui|hoje é|hoy es|heute ist|今天是|今日は)\\b.{0,60}$"
            + "|^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday),? .{3,30}\\d{4}$",
            FLAGS);

    /** Slide and page counters ("3/50", "Image 2 of 12") and bare photo credits ("Getty Images", "Photo: AP"). */
    private static final Pattern COUNTER_OR_CREDIT = Pattern.compile(
            "^(?:(?:image|photo|slide|picture|foto|imagem|bild|图|圖)\\s*)?\\d{1,3}\\s*(?:/|of|de|von|sur)\\s*\\d{1,3}$"
            + "|^(?:(?:photo|image|picture|photograph|foto|imagem|bild|credit|crédit|crédito|source|fonte|quelle)s?\\s*(?:credit)?\\s*[:：]\\s*)?"
            + "(?:[\\p{L}.' -]{0,40}[/|,]\\s*)?(?:getty(?: images)?|shutterstock|afp|reuters|ap|ap photo|associated press|epa|rex|rex features"
            + "|pa|pa wire|corbis|alamy|istock(?:photo)?|dpa|xinhua|bloomberg|wireimage|splash news)(?:\\s*/\\s*[\\p{L}. -]{1,30})?$",
            FLAGS);

    /**
     * The furniture of a post on a Q&A site or a forum: its edit and share links, its "asked" and "answered"
     * times, the author's badges, the comment links and the sort tabs of the answers.
     */
    private static final Pattern POST_META = Pattern.compile(
            "^(?:share\\s*)?(?:\\|\\s*)?improve this (?:answer|question|post)(?:\\s*\\|?\\s*follow)?$|^add a comment$"
            + "|^show \\d+ more comments?$|^(?:asked|answered|edited|modified|commented|posted)\\s+(?:[A-Z][a-z]{2,8}\\.? \\d{1,2}"
            + "(?:, \\d{4}| '\\d\\d)?(?: at \\d{1,2}:\\d{2})?|\\d+ (?:secs?|seconds?|mins?|minutes?|hours?|days?|weeks?|months?|years?) ago"
            + "|yesterday|today)\\b.{0,20}$|^[\\d,.]+k?\\s*\\d*\\s*(?:gold|silver|bronze) badges?.*$"
            + "|^(?:asked|active|viewed|modified|sorted by:?|oldest|newest|votes|highest score \\(default\\))$"
            // Portuguese and Spanish
            + "|^(?:\\|\\s*)?(?:melhorar|mejorar) esta (?:pergunta|resposta|pregunta|respuesta)$|^(?:adicione|agregar|añade) un?m? comentário$"
            + "|^(?:editada|editado|perguntada|respondida|preguntada|formulada|respondido)\\s+.{0,24}\\d{1,2}:\\d{2}$"
            + "|^[\\d,.]+(?:mil|k)?\\s*\\d*\\s*(?:medalhas?|medallas?) de (?:ouro|prata|bronze|oro|plata|bronce).*$"
            + "|^(?:perguntada|ativa|vista|ativos|votos|preguntada|activa|vista)$",
            FLAGS);

    /**
     * The signature under a comment ("– tripleee") and its time to the minute ("Jan 5 '15 at 5:15", "3 hours
     * ago"); a quoted tweet's "— Name (@name)" over a bare date is the article's.
     */
    private static final Pattern SIGNATURE = Pattern.compile("^[–—]\\s?\\S.{0,40}$");
    private static final Pattern COMMENT_TIME = Pattern.compile(
            "^(?:[A-Z][a-z]{2,8}\\.? \\d{1,2}(?:, \\d{4}| '\\d\\d)? at \\d{1,2}:\\d{2}"
            + "|\\d{1,2}[/.]\\d{1,2}[/.]\\d{2,4},? (?:at|às|a las|à|um) \\d{1,2}:\\d{2}|\\d+ (?:secs?|seconds?|mins?|minutes?"
            + "|hours?|days?|weeks?|months?|years?) ago)(?:\\s*\\S{0,12})?$");

    static boolean isPostMeta(String line) {
        String n = line.strip();
        return n.length() <= 120 && POST_META.matcher(n).find();
    }

    /** Whether {@code line} signs a comment and {@code next} gives its time. */
    static boolean isSignedComment(String line, String next) {
        return SIGNATURE.matcher(line.strip()).matches() && COMMENT_TIME.matcher(next.strip()).matches();
    }

    private static final Pattern URL = Pattern.compile("^(?:https?://|www\\.)\\S+$", FLAGS);

    static String normalise(String line) {
        String s = line.toLowerCase(Locale.ROOT).strip();
        // strip leading bullets, counters, icons; trailing counters, arrows and punctuation
        s = s.replaceAll("^[\\p{Punct}\\p{S}\\d\\s·•|»«›‹→←]+", "");
        s = s.replaceAll("[\\p{Punct}\\p{S}\\d\\s·•|»«›‹→←]+$", "");
        return s.replaceAll("\\s+", " ");
    }

    /** The whole line is a widget or navigation label. */
    static boolean isLabel(String line) {
        String n = normalise(line);
        if (n.isEmpty()) {
            return false;
        }
        return n.length() <= 60 && LABEL.matcher(n).matches();
    }

    static boolean hasPhrase(String line) {
        return PHRASE.matcher(line).find() || (line.length() < 100 && SHORT_PHRASE.matcher(line.strip()).find());
    }

    /** Words one of which every STRONG phrase contains: a cheap test before the regular expression. */
    private static final List<String> STRONG_KEYS = List.of("cookie", "reserv", "réserv", "rechte", "email address",
            "права защищены", "무단", "저작권",
            "by continuing", "by using",
            "required fields", "ad block", "adblock", "版權", "版权");

    static boolean hasStrongPhrase(String line) {
        if (line.length() > 1200) {
            return false; // consent banners and footers are not this long; a paragraph this long is prose
        }
        String lower = line.toLowerCase(Locale.ROOT);
        for (String k : STRONG_KEYS) {
            if (lower.contains(k)) {
                return STRONG.matcher(line).find();
            }
        }
        return false;
    }

    static boolean isCommentsHeading(String line) {
        String n = line.strip().toLowerCase(Locale.ROOT);
        return n.length() <= 80 && COMMENTS_HEADING.matcher(n).matches();
    }

    static boolean isTeaserHeading(String line) {
        String n = normalise(line);
        return !n.isEmpty() && n.length() <= 60 && TEASER_HEADING.matcher(n).matches();
    }

    static boolean isCommentMark(String line) {
        String n = line.strip();
        return n.length() <= 80 && COMMENT_MARK.matcher(n).find();
    }

    static boolean isStaleDate(String line) {
        return STALE_DATE.matcher(line.strip()).find();
    }

    static boolean isCounterOrCredit(String line) {
        String n = line.strip();
        return n.length() <= 60 && COUNTER_OR_CREDIT.matcher(n).matches();
    }

    /** TeX source that MathML pages carry next to the rendered formula ("{\\displaystyle ...}"). */
    static boolean isTexAnnotation(String line) {
        String n = line.strip();
        return n.startsWith("{\\displaystyle") || n.startsWith("{\\textstyle");
    }

    static boolean isUrl(String line) {
        return URL.matcher(line.strip()).matches();
    }

    static List<Pattern> patterns() {
        return List.of(LABEL, PHRASE, SHORT_PHRASE, STRONG, COMMENTS_HEADING, COMMENT_MARK, STALE_DATE, COUNTER_OR_CREDIT, URL,
                POST_META, SIGNATURE, COMMENT_TIME);
    }
}
