package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cleaner on technical pages (documentation with code samples, API references, Q&A answers with
 * code), written as Open WebUI extracts them: every block on its own line, a listing's lines as they
 * are. The prose between code blocks and the blocks themselves stay, the blocks fenced; navigation,
 * copy buttons, line numbers and cookie banners go.
 */
class TechnicalPagesTest {
    private final WebTextCleaner cleaner = new WebTextCleaner();

    private static final String SIDEBAR = """
            Skip to content
            Fetchkit 2.1
            Search
            Guide
            Installation
            Quick start
            Configuration
            Sessions
            Retries
            Proxies
            API reference
            Changelog
            Contributing
            License

            We use cookies to improve your experience on our site. By continuing to use this site you accept our use of cookies.

            Accept all cookies

            """;

    static final String DOCS_PAGE = SIDEBAR + """
            Quick start

            Install the library with pip, preferably inside a virtual environment:

            $ python -m venv .venv
            $ . .venv/bin/activate
            $ pip install fetchkit

            Copy

            Then create a client and fetch a page. The client keeps its connection open, so create one per application and \
            reuse it:

            1
            2
            3
            4
            5

            from fetchkit import Client

            client = Client(timeout=10)
            page = client.fetch("https://example.org")
            print(page.status)

            Copy

            The timeout is in seconds.

            Reading the body

            The body is decoded with the charset the server announces, or as UTF-8 when it announces none:

            text = page.text()
            data = page.json()

            Copy

            Configuration

            Settings are read from the environment first, then from a file named fetchkit.toml in the working directory:

            [client]
            timeout = 30
            retries = 3

            Copy

            Edit this page

            Previous
            Installation

            Next
            Configuration

            © 2024 Fetchkit contributors. All rights reserved.
            """;

    @Test
    void keepsTheProseBetweenCodeBlocksAndFencesTheBlocks() {
        String out = cleaner.clean(DOCS_PAGE);
        assertThat(out).contains("Install the library with pip", "Then create a client and fetch a page",
                "The timeout is in seconds.", "The body is decoded with the charset", "Settings are read from the environment");
        List<String> blocks = fencedBlocks(out);
        assertThat(blocks).hasSize(4);
        assertThat(blocks.get(0)).isEqualTo("$ python -m venv .venv\n$ . .venv/bin/activate\n$ pip install fetchkit");
        assertThat(blocks.get(1)).isEqualTo("from fetchkit import Client\n\nclient = Client(timeout=10)\n"
                + "page = client.fetch(\"https://example.org\")\nprint(page.status)");
        assertThat(blocks.get(3)).isEqualTo("[client]\ntimeout = 30\nretries = 3");
    }

    @Test
    void dropsNavigationCopyButtonsLineNumbersAndCookieBanners() {
        String out = cleaner.clean(DOCS_PAGE);
        assertThat(out).doesNotContain("Changelog", "Proxies", "Copy", "cookies", "Edit this page", "All rights reserved");
        assertThat(out).doesNotContainPattern("(?m)^[1-5]$");
    }

    @Test
    void keepsTheIndentationOfAListing() {
        String page = SIDEBAR + """
                Greeting people

                A greeting needs a name; without one the function falls back to a plain hello, as the example shows:

                def greet(name):
                    if not name:
                        return "hello"
                    return "hello " + name

                Names are not checked any further: an empty string and None both count as no name at all.
                """;
        String out = cleaner.clean(page);
        assertThat(out).contains("```\ndef greet(name):\n    if not name:\n        return \"hello\"\n    return \"hello \" + name\n```");
        assertThat(out).contains("A greeting needs a name", "Names are not checked any further");
    }

    @Test
    void doesNotJoinTheLinesOfAListingAsIfTheyWereAWrappedSentence() {
        String page = SIDEBAR + """
                Sorting in place

                The list is sorted in place and nothing is returned, which is why the second line of this example prints None:

                numbers = [3, 1, 2]
                result = numbers.sort(reverse=True,
                    key=abs)
                print(numbers, result)

                Use sorted() when a new list is wanted and the original must stay as it was before the call.
                """;
        List<String> blocks = fencedBlocks(cleaner.clean(page));
        assertThat(blocks).containsExactly("numbers = [3, 1, 2]\nresult = numbers.sort(reverse=True,\n    key=abs)\n"
                + "print(numbers, result)");
    }

    private static final String ANSWER_CHROME = """

            Share
            Improve this answer
            Follow

            answered Sep 9 '09 at 19:11

            kwatford
            20.3k22 gold badges3737 silver badges6060 bronze badges

            """;

    @Test
    void keepsAQuestionAndItsAnswersWithTheirCode() {
        String page = """
                Questions
                Tags
                Users
                Companies
                Unanswered
                Teams
                Ask Question
                Log in
                Sign up

                How do I print the date as YYYY-MM-DD in a shell script?

                Asked 11 years ago
                Viewed 1.5m times

                1164

                I tried using $(date) in my bash shell script, however, I want the date in YYYY-MM-DD format.

                How do I get this?

                bash
                shell
                date

                3 Answers

                Sorted by:

                1897

                In bash 4.2 and later it is preferable to use the printf built-in date formatter rather than the external date \
                command, because no process has to be started:

                # put the current date as yyyy-mm-dd in $date
                printf -v date '%(%Y-%m-%d)T\\n' -1

                # print it directly
                printf '%(%Y-%m-%d)T\\n' -1
                """ + ANSWER_CHROME + """
                4

                In the first days of the month I get 2012-07-1, which is not what the question asks for at all.

                – DerMike
                Jul 2 '12 at 9:29

                Add a comment

                355

                The date command itself can do it:

                $ date +'%Y-%m-%d'
                2017-11-10
                """ + ANSWER_CHROME + """
                49

                You're looking for the ISO 8601 date format, so if you have GNU date you can simply ask for it with the -I option:

                date -I
                """ + ANSWER_CHROME + """
                Linked

                How to get the current date in a shell script without the time?

                Format a Unix timestamp as a date in bash

                Related

                How do I parse command line arguments in Bash?

                How to check if a string contains a substring in Bash

                How do I split a string on a delimiter in Bash?

                How to concatenate string variables in Bash

                Hot Network Questions

                Why is the sky blue at noon and red in the evening?

                What is the best way to learn Rust after Python?

                How do planes fly upside down for so long?

                Is a cup of coffee a day bad for you?

                Why do cats purr when they are hurt?

                How are double rainbows formed after rain?

                What is at the centre of a black hole?

                Why is the sea salty but rivers are not?

                Stack Overflow
                Questions
                Help
                Products
                Teams
                Advertising
                Collectives
                Talent
                Company
                About
                Press
                Work Here
                Legal
                Privacy Policy
                Terms of Service
                Contact Us
                Cookie Settings
                Cookie Policy
                """;
        String out = cleaner.clean(page);
        assertThat(out).contains("I tried using $(date) in my bash shell script", "preferable to use the printf built-in",
                "The date command itself can do it:", "You're looking for the ISO 8601 date format");
        assertThat(fencedBlocks(out)).contains("# put the current date as yyyy-mm-dd in $date\nprintf -v date '%(%Y-%m-%d)T\\n' -1\n"
                + "\n# print it directly\nprintf '%(%Y-%m-%d)T\\n' -1", "$ date +'%Y-%m-%d'\n2017-11-10", "date -I");
        assertThat(out).doesNotContain("Hot Network Questions", "Why do cats purr", "Log in", "Cookie Policy");
        assertThat(out).as("the furniture of the posts and the comments under them")
                .doesNotContain("Improve this answer", "answered Sep 9", "gold badges", "In the first days of the month", "DerMike",
                        "Add a comment");
    }

    @Test
    void keepsTheParameterTablesOfAnApiReference() {
        StringBuilder page = new StringBuilder(SIDEBAR);
        String[][] entries = {
            {"retry", "Retries a task until it succeeds or the attempts run out, waiting longer after every failure.",
                "retry(3, fetchPage, function (err, page) {\n    render(page);\n});"},
            {"timeout", "Fails a task that takes longer than the given time, and cancels it if the task can be cancelled.",
                "timeout(fetchPage, 1000)(url, function (err) {\n    report(err);\n});"},
            {"memoize", "Caches the results of a task by its first argument, so that a second call returns at once.",
                "var cached = memoize(fetchPage);\ncached(url, show);"},
        };
        for (String[] e : entries) {
            page.append("(static) ").append(e[0]).append("(task) → {Function}\n\n")
                    .append(e[1]).append("\n\nParameters:\n\nName\n\nType\n\nDescription\n\ntask\n\nFunction\n\n")
                    .append("The task to run; it receives a callback as its last argument.\n\n")
                    .append("Returns:\n\nA function with the same signature as the task.\n\nType\n\nFunction\n\nExample\n\n")
                    .append(e[2]).append("\n\nSource:\n\n").append(e[0]).append(".js, line 12\n\n");
        }
        String out = cleaner.clean(page.toString());
        assertThat(out).contains("Retries a task until it succeeds", "Fails a task that takes longer",
                "Caches the results of a task", "The task to run; it receives a callback");
        assertThat(out.split("\nParameters:\n", -1)).as("every entry keeps its parameter table").hasSize(4);
        assertThat(fencedBlocks(out)).contains("var cached = memoize(fetchPage);\ncached(url, show);");
    }

    private static final String NEWS_MENU = "Home\nNews\nSport\nWeather\nCulture\nTravel\nSign in\nSubscribe\n\n";

    @Test
    void proseThatQuotesCodeIsNotFenced() {
        String page = NEWS_MENU + """
                Council approves the new tram line

                The council approved the tram line on Monday. Its engineers describe the timetable with a formula, f(x) = 2x + 5, \
                where x is the number of carriages, and say that the first trams will run in the spring of next year.

                <span class=promo>Sponsored by </span>Cheap flights to anywhere

                "Do what the people want": the mayor's message to the opposition before the vote

                The line will cost 48 million euros and connect the station with the university and the new hospital, the city said \
                in a statement published after the vote.
                """;
        String out = cleaner.clean(page);
        assertThat(out).doesNotContain("```");
        assertThat(out).contains("f(x) = 2x + 5", "The line will cost 48 million euros");
    }

    /** The contents of the ``` fenced blocks of {@code text}, in order. */
    static List<String> fencedBlocks(String text) {
        List<String> blocks = new ArrayList<>();
        StringBuilder cur = null;
        for (String line : text.split("\n", -1)) {
            if (line.equals("```")) {
                if (cur == null) {
                    cur = new StringBuilder();
                } else {
                    blocks.add(cur.toString().stripTrailing());
                    cur = null;
                }
            } else if (cur != null) {
                cur.append(cur.isEmpty() ? "" : "\n").append(line);
            }
        }
        assertThat(cur).as("every fence is closed").isNull();
        return blocks;
    }
}
