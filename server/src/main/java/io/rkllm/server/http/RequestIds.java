package io.rkllm.server.http;

import io.javalin.http.Context;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Every response carries {@code x-request-id}: the client's own when it sent a sane one, else a new one. */
final class RequestIds {
    static final String HEADER = "x-request-id";
    private final SecureRandom random = new SecureRandom();

    void assign(Context ctx) {
        String given = ctx.header(HEADER);
        String id = given != null && given.matches("[A-Za-z0-9._:-]{1,128}") ? given : fresh();
        ctx.header(HEADER, id);
    }

    private String fresh() {
        byte[] bytes = new byte[12];
        random.nextBytes(bytes);
        return "req-" + HexFormat.of().formatHex(bytes);
    }
}
