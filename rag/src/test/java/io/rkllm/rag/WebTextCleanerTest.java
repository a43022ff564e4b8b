package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WebTextCleanerTest {
    private final WebTextCleaner cleaner = new WebTextCleaner();

    private static final String ARTICLE = """
            Home
            News
            Sport
            Weather
            Sign in
            Subscribe

            Bridge reopens after two years of repairs

            The old river bridge reopened to traffic on Monday after two years of repairs that cost the city \
            more than it had planned, the mayor said at a ceremony attended by several hundred residents.

            Engineers replaced the deck and strengthened the piers, which had been damaged by floods in the \
            spring of 2021. The work was carried out in three phases so that pedestrians could keep crossing.

            The final bill came to 48 million euros, against an initial estimate of 31 million, according to \
            figures published by the city council on its website last week.
            """;

    private static final String FOOTER = """

            Share
            Facebook
            Twitter
            Email
            Related articles
            Ten things to do this weekend
            The best bakeries in town
            Privacy policy
            Cookie settings
            © 2024 Example Media. All rights reserved.
            """;

    @Test
    void keepsTheArticleAndDropsMenusAndFooter() {
        String out = cleaner.clean(ARTICLE + FOOTER);
        assertThat(out).contains("The old river bridge reopened", "Engineers replaced the deck",
                "The final bill came to 48 million euros");
        assertThat(out).doesNotContain("Sign in", "Subscribe", "Facebook", "Privacy policy", "All rights reserved",
                "best bakeries");
    }

    @Test
    void removesCookieBanner() {
        String page = """
                We use cookies to improve your experience on our site and to show you personalised advertising. \
                By continuing to use this site you accept our use of cookies.
                Accept all cookies
                Manage preferences
                """ + ARTICLE;
        String out = cleaner.clean(page);
        assertThat(out).doesNotContainIgnoringCase("cookies").doesNotContain("Manage preferences");
        assertThat(out).contains("The old river bridge reopened");
    }

    @Test
    void keepsListsTablesAndNumbersInsideTheArticle() {
        String page = ARTICLE.replace("The final bill", """
                Costs by phase were as follows:

                Phase
                Cost (million euros)
                Deck
                21.5
                Piers
                17.0
                Lighting
                9.5

                The three phases were:
                1. Replacing the deck and the railings
                2. Strengthening the piers below the water line
                3. New lighting and repainting

                The final bill""") + FOOTER;
        String out = cleaner.clean(page);
        assertThat(out).contains("Cost (million euros)", "21.5", "17.0", "9.5", "1. Replacing the deck",
                "3. New lighting and repainting", "The final bill");
        assertThat(out).doesNotContain("Privacy policy");
    }

    @Test
    void keepsChineseProseWithoutRelyingOnWesternPunctuation() {
        String page = """
                首頁
                新聞
                登入
                註冊

                玉峰道路一路上雲氣山嵐滯留山頭 順路下切蜿蜒道路後不久即抵達來到玉峰國小
                美樹美如其名偌大楓香樹早已呈現金黃 泛紅色彩也是愛攝人仕所喜愛造訪之地
                第二次造訪美樹發現到營區變了 印象中以前生冷招牌換成了原木招牌可謂匠心獨運
                營區內除了露營、民宿、餐飲、賞楓項目多了許多原木飾品更有畫龍點睛加乘效果
                廣受歡迎的美樹營地有個很大特色就是楓紅時期楓香樹由綠轉黃、轉紅到楓紅層層
                每年12月向來是攝影班外拍的絕佳場所之一 楓紅期間入園費50元

                分享
                上一篇
                下一篇
                版權所有 © 2024
                """;
        String out = cleaner.clean(page);
        assertThat(out).contains("玉峰道路一路上雲氣山嵐滯留山頭", "每年12月向來是攝影班外拍的絕佳場所之一");
        assertThat(out).doesNotContain("登入", "上一篇", "版權所有");
    }

    @Test
    void keepsJapaneseParagraph() {
        String page = "ホーム\nメニュー\nログイン\n\n"
                + "肉をくわえたイヌが、橋を渡っていました。ふと下を見ると、川の中にも肉をくわえたイヌがいます。"
                + "イヌはそれを見て、思いました。あいつの肉の方が、大きそうだ。そこでイヌは、川の中のイヌに向かって"
                + "思いっきり吠えました。そのとたん、くわえていた肉はポチャンと川の中に落ちてしまいました。\n\n"
                + "関連記事\nシェア\nツイート\n";
        String out = cleaner.clean(page.repeat(1));
        assertThat(out).contains("肉をくわえたイヌが、橋を渡っていました。").doesNotContain("ログイン", "ツイート");
    }

    private static final String MORE_MENU = ("Ещё новости\nПогода\nКурсы валют\nГороскоп\nТВ программа\nАфиша\nКино\n"
            + "Музыка\nТеатр\nВыставки\n").repeat(4);

    @Test
    void keepsRussianArticleAndDropsItsMenus() {
        String article = "Мост через реку открыли для движения в понедельник после двух лет ремонта, который обошёлся городу "
                + "дороже, чем планировалось, сообщил мэр на церемонии.\n\nИтоговая стоимость составила 48 миллионов евро "
                + "при первоначальной оценке в 31 миллион, согласно данным городского совета.\n\n";
        String out = cleaner.clean("Главная\nНовости\nВойти\nПоиск\n\n" + MORE_MENU + article
                + "Поделиться\nРеклама\n© 2024 Все права защищены\n" + MORE_MENU);
        assertThat(out).contains("Мост через реку открыли", "48 миллионов евро").doesNotContain("Гороскоп", "Войти",
                "Все права защищены");
    }

    @Test
    void keepsKoreanArticle() {
        String article = "서울시는 월요일 2년간의 보수 공사를 마친 강 다리를 다시 개통했다고 밝혔다. 시장은 기념식에서 공사비가 "
                + "예상보다 많이 들었다고 말했다.\n\n최종 공사비는 4800만 유로로 처음 추정치인 3100만 유로보다 많았다고 "
                + "시의회가 지난주 발표했다.\n\n";
        String out = cleaner.clean("홈\n로그인\n검색\n\n" + MORE_MENU + article + "공유하기\n댓글\n광고\n" + MORE_MENU);
        assertThat(out).contains("서울시는 월요일", "최종 공사비는 4800만 유로로").doesNotContain("로그인", "광고", "Афиша");
    }

    @Test
    void dropsShareWidgetsAndCommentSection() {
        String page = ARTICLE + """

                Share this:
                Click to share on Facebook (Opens in new window)
                Click to share on Twitter (Opens in new window)

                3 Comments

                Anna Smith
                March 10, 2024 at 12:20 AM
                I have crossed that bridge every day for twenty years and I am very glad it is finally open again, \
                although I think the repairs took far longer than anybody had been told at the start.
                Reply
                Tom
                March 10, 2024 at 1:26 AM
                The council should publish the full list of contractors and what each of them was paid for the work \
                on the deck, because the numbers in this article do not add up.
                Reply
                Leave a Reply
                Your email address will not be published. Required fields are marked *
                """;
        String out = cleaner.clean(page);
        assertThat(out).contains("The final bill came to 48 million euros");
        assertThat(out).doesNotContain("Click to share", "crossed that bridge every day", "contractors", "Reply");
    }

    /** A teaser card of a front page: photo credit, headline, summary, byline. */
    private static String card(String headline, String summary, String author) {
        return "Photo\nCreditPhotograph by " + author + " for The Daily\n" + headline + "\n" + summary + "\nBy " + author + "\n";
    }

    @Test
    void keepsEverySectionOfAFrontPageOfTeasers() {
        String ad = "\nAdvertisement\nContinue reading the main story\n";
        String page = "The Daily - Front page\nSections\nSEARCH\nSkip to content\n"
                + "World\nPolitics\nBusiness\nOpinion\nTech\nScience\nHealth\nSports\nArts\nBooks\nHighlights\n"
                + card("Harbour cranes return to the old port", "The city bought back four cranes sold in the nineties "
                        + "and will restore them over the next two years as a museum of the docks.", "Ana Lima")
                + card("Night trains are full again this winter", "Operators added carriages on three routes after bookings "
                        + "doubled compared with last year's season, and more are planned for spring.", "Tom Weber")
                + card("A village votes to keep its only school open", "Parents collected signatures for a year and the "
                        + "regional council has finally agreed to fund two more teachers from September.", "Eva Novak")
                + card("Why the river froze for the first time since 1963", "Meteorologists explain how a week of still air "
                        + "and clear nights cooled the water much faster than anyone had expected it to.", "Li Wei")
                + card("The bakery that never closes", "For forty years the family has baked through every night of the year, "
                        + "and the queue at dawn has become a habit of the whole street.", "Marta Ruiz")
                + ad + "Opinion\n"
                + card("Libraries are the last free rooms", "Nobody asks you to buy anything in a library, and that is exactly "
                        + "why a city that wants to stay open to everyone should keep them.", "Jo Park")
                + card("Let the children be bored", "Boredom teaches what no screen can.", "Sam Reid")
                + ad + "Most popular\nSign up for the newsletter\nPrivacy policy\nTerms of service\n© 2024 The Daily\n";
        String out = cleaner.clean(page);
        assertThat(out).contains("The city bought back four cranes", "The bakery that never closes");
        assertThat(out).as("on a page of teasers, a lighter section of teasers is content too")
                .contains("Nobody asks you to buy anything in a library");
        assertThat(out).doesNotContain("Skip to content", "Privacy policy", "Advertisement", "Sign up for the newsletter");
    }

    @Test
    void dropsStaleDateClaims() {
        String page = "Today is Monday, 3 March 2019\nLast updated: 2 hours ago\n\n" + ARTICLE + FOOTER;
        assertThat(cleaner.clean(page)).doesNotContain("Today is Monday").contains("The old river bridge reopened");
    }

    @Test
    void leavesCleanShortTextAlone() {
        String text = """
                Lorem ipsum dolor sit amet, consectetur adipisicing elit, sed do eiusmod tempor incididunt ut labore \
                et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris.

                Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur.
                """;
        String out = cleaner.clean(text);
        assertThat(out).contains("Lorem ipsum dolor sit amet", "Duis aute irure dolor");
    }

    @Test
    void emptyAndBlankInput() {
        assertThat(cleaner.clean("")).isEmpty();
        assertThat(cleaner.clean("\n\n  \n")).isEmpty();
    }
}
