package io.rkllm.rag;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Where an article starts and ends (issue 30): a long technical post runs to its last section even when a
 * section is headed by a word of a comment section's vocabulary, and a short news item starts at its
 * headline and dateline, not at its first full paragraph.
 */
class ArticleEdgesTest {
    private final WebTextCleaner cleaner = new WebTextCleaner();

    private static final String MENU = """
            Skip to content
            Home
            Articles
            Demos
            Events
            About
            Contact
            Archives
            Subscribe

            """;

    /** A 2015-style web platform post: prose between short listings, sections named after the API's types. */
    private static final String TECHNICAL_POST = MENU + """
            Fetching resources the new way

            The new fetch() function gives scripts a lower-level way to make network requests than the old
            XMLHttpRequest object, and it returns a Promise instead of firing events at callbacks.

            fetch("/users.json").then(function(response) {
              return response.json();
            });

            The call above resolves once the headers have arrived; the body is read separately, as we will
            see in the sections below, which walk through the three types the function works with.

            Headers

            A Headers object is a simple multi-map of names to values, and every request and response has
            one. It can be filled in the constructor or with the append method afterwards.

            var content = "Hello World";
            var headers = new Headers();
            headers.append("Content-Type", "text/plain");
            headers.append("Content-Length", content.length.toString());

            Request

            A Request object represents the request part of a fetch call. By passing it a url, a method and
            headers you can build a request that is sent later, or that a service worker inspects.

            var req = new Request("/index.html", { method: "POST" });
            console.log(req.method); // "POST"

            Response

            Response instances are returned by calls to fetch() and can also be created by scripts, which is
            mostly useful in service workers that answer requests themselves.

            The most obvious attributes are status, an integer defaulting to 200, and statusText, which
            correspond to the status code and reason phrase of the answer from the server.

            addEventListener("fetch", function(event) {
              event.respondWith(new Response("Response body", {
                headers: { "Content-Type": "text/plain" }
              }));
            });

            Bodies

            Both requests and responses may carry a body, which can be read once as text, as JSON, as a blob
            or as an array buffer; reading it a second time rejects with a type error.

            Conclusion

            The fetch function is available in recent browsers behind no flag at all, and a polyfill covers
            the older ones until the streams work lands in the specification later this year.

            Posted by Jane Doe on March 10, 2015 at 08:05

            2 comments

            Post a comment
            Alex Peters wrote on March 11th, 2015 at 02:57:
            How do you abort a fetch that is taking too long to answer?
            Reply
            Jane Doe wrote on March 11th, 2015 at 08:00:
            At this point there is no way to do so, but the discussion about cancellable promises is ongoing.
            Reply
            Your name *
            Your e-mail *
            Submit Comment
            Notify me of followup comments via e-mail.
            """;

    @Test
    void aSectionNamedLikeACommentSectionDoesNotEndTheArticle() {
        String out = cleaner.clean(TECHNICAL_POST);
        assertThat(out).contains("Response instances are returned by calls to fetch()",
                "The most obvious attributes are status",
                "event.respondWith(new Response(",
                "Both requests and responses may carry a body",
                "a polyfill covers the older ones");
        assertThat(out).doesNotContain("How do you abort a fetch", "no way to do so", "Submit Comment");
    }

    @Test
    void aRealCommentSectionStillEndsTheArticle() {
        // the same post with its section renamed: the comments under it go as before
        String out = cleaner.clean(TECHNICAL_POST.replace("\nResponse\n", "\nAnswers\n"));
        assertThat(out).contains("a polyfill covers the older ones");
        assertThat(out).doesNotContain("How do you abort a fetch", "cancellable promises");
    }

    /** A celebrity news item: headline over a tag line, dateline with byline, a one-word kicker, then the story. */
    private static final String NEWS_ITEM = """
            Lina Marsh's $150K Pearl Gown -- STOLEN!!! | Daily Buzz
            Daily Buzz
            Our TV Shows
            Got a Tip?
            Celebs
            Videos
            Photos
            Sports
            TV
            Store
            Tours
            Sign In
            Register
            Rapper Assaulted in Nightclub
            Two Actors -- No Love Lost ... NOT on Speaking Terms
            Home

            Lina Marsh

            $150K Pearl Gown ... STOLEN!!!!

            2/26/2015 7:11 AM PST BY DAILY BUZZ STAFF

            EXCLUSIVE

            Lina Marsh's now-famous awards gown
            -- covered in pearls -- was stolen right out of her hotel room ... Daily Buzz
            has learned.

            Police sources tell us the gown was taken from her suite at the Grand Hotel downtown. The gown is \
            made of 6,000 white pearls and it is valued at $150,000.

            Our sources say Marsh told officers it was taken from the room sometime between
            8 AM and 9 PM Wednesday ... while she was out.

            We're told there is security footage that officers are looking at that could catch the thief in the act.

            12:00 PM PT -- Deputies were at the hotel Thursday morning. We know they were in the manager's office \
            and we're told they have looked at security footage to determine if they can identify the thief.

            See also
            Famous Restaurant -- $300,000 Worth of Wine Stolen
            Singer -- Burglary Victim ... AGAIN
            Get Daily Buzz breaking news alerts to your inbox
            By clicking "Submit," you agree to the Privacy Policy and Terms of Use.
            Comments
            Advertisement
            Around The Web
            Star Shares Post-Baby Weight
            Celebrity Instagrams Her Vacation
            When Contouring Fails
            Privacy Policy
            Terms of Use
            Contact
            """;

    @Test
    void aNewsItemStartsAtItsHeadlineAndDateline() {
        String out = cleaner.clean(NEWS_ITEM);
        assertThat(out).startsWith("$150K Pearl Gown ... STOLEN!!!!");
        assertThat(out).contains("2/26/2015 7:11 AM PST BY DAILY BUZZ STAFF", "EXCLUSIVE",
                "Lina Marsh's now-famous awards gown -- covered in pearls -- was stolen right out of her hotel room ... "
                        + "Daily Buzz has learned.",
                "they can identify the thief", "Police sources tell us");
        assertThat(out).doesNotContain("Two Actors", "Famous Restaurant", "Post-Baby", "Privacy Policy");
    }

    @Test
    void titlesRightAboveTheFirstParagraphWithoutADatelineAreNotTheArticlesHead() {
        // a "More on" box of other stories' titles between the byline and the story: no dateline closes it
        String page = NEWS_ITEM.replace("2/26/2015 7:11 AM PST BY DAILY BUZZ STAFF\n\nEXCLUSIVE\n", """
                More On:
                pearls
                Thieves take jewels worth millions from a museum in broad daylight
                Hotel guests warned after a string of burglaries
                Police recover a stolen painting from a garage
                """);
        String out = cleaner.clean(page);
        assertThat(out).contains("Police sources tell us");
        assertThat(out).doesNotContain("Thieves take jewels", "Hotel guests warned", "stolen painting");
    }
}
