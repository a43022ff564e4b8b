package io.rkllm.server.http.responses;

import io.rkllm.server.http.responses.ResponsesRequestParser.ResponsesRequest;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.rkllm.server.api.ApiException;
import io.rkllm.server.http.ConversationHeader;
import io.rkllm.server.http.LogprobsJson;
import io.rkllm.server.http.RunDriver;
import io.rkllm.server.http.Sse;
import io.rkllm.server.pipeline.Run;
import io.rkllm.server.pipeline.RunStep;
import io.rkllm.server.pipeline.output.OutputEvent;
import io.rkllm.server.pipeline.output.TokenProbability;
import io.rkllm.server.pipeline.request.ChatMessage;
import io.rkllm.server.pipeline.request.ChatRequest;
import io.rkllm.server.pipeline.request.Role;
import io.rkllm.server.pipeline.request.ToolCallRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The OpenAI Responses API: {@code POST /v1/responses} through the same pipeline, cache policy and queue as chat
 * completions, answered as one response object or streamed as the API's typed events; {@code GET} and
 * {@code DELETE /v1/responses/{id}} on the stored responses. A response is stored (unless {@code store: false}) in a
 * bounded memory store so that a later request can continue it with {@code previous_response_id}.
 */
final class ResponsesHandler {
    private final RunDriver driver;
    private final ResponsesRequestParser parser;
    private final ResponseStore store;
    private final ObjectMapper mapper;
    private final ResponseObjects objects;

    ResponsesHandler(RunDriver driver, ResponsesRequestParser parser, ResponseStore store, ObjectMapper mapper) {
        this.driver = driver;
        this.parser = parser;
        this.store = store;
        this.mapper = mapper;
        this.objects = new ResponseObjects(mapper);
    }

    /** Names the hosted tools a request offered that were left out. */
    static final String TOOLS_IGNORED_HEADER = "X-RKLLM-Tools-Ignored";

    void create(Context ctx) throws Exception {
        ResponsesRequest parsed = parser.parse(ctx.bodyAsBytes(),
                ConversationHeader.of(ctx), store::item);
        List<ChatMessage> history = parsed.previousResponseId().map(this::previous).orElse(List.of());
        ChatRequest request = parsed.request(history);
        List<ChatMessage> conversation = new ArrayList<>(history);
        conversation.addAll(parsed.input());
        String id = ResponseObjects.id("resp");
        long created = Instant.now().getEpochSecond();
        if (!parsed.ignoredTools().isEmpty()) {
            ctx.header(TOOLS_IGNORED_HEADER, String.join(", ", parsed.ignoredTools())
                    + ": hosted tools, which nothing runs on this server, left out");
        }
        driver.run(ctx, request, run -> {
            String model = run.modelId();
            if (request.stream()) {
                driver.stream(ctx, run, new Events(id, created, model, parsed, conversation));
            } else {
                driver.collect(ctx, run, answer -> {
                    ObjectNode response = objects.response(id, created, model, parsed.echo(),
                            ResponseObjects.status(answer.finishReason()),
                            objects.output(answer, parsed.reasoningSummary(), parsed.namespaces()), answer.usage(),
                            Optional.empty());
                    keep(parsed, id, conversation, answer.content(), answer.toolCalls(), response);
                    ctx.status(200).contentType("application/json").result(mapper.writeValueAsBytes(response));
                });
            }
        });
    }

    void get(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        ResponseStore.Stored stored = store.get(id).orElseThrow(() -> notFound(id));
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsBytes(stored.response()));
    }

    void delete(Context ctx) throws Exception {
        String id = ctx.pathParam("id");
        if (!store.remove(id)) {
            throw notFound(id);
        }
        ObjectNode root = mapper.createObjectNode().put("id", id).put("object", "response").put("deleted", true);
        ctx.status(200).contentType("application/json").result(mapper.writeValueAsBytes(root));
    }

    /** The conversation of the stored response {@code id}; a 400 when there is none (never stored, or dropped). */
    private List<ChatMessage> previous(String id) {
        return store.get(id).map(ResponseStore.Stored::conversation).orElseThrow(() -> new ApiException(400,
                "invalid_request_error", "previous_response_not_found", "previous_response_id",
                "Previous response with id '" + id + "' not found. This server keeps the last responses in memory"
                        + " only (limits.stored_responses), none across restarts, and none sent with store: false;"
                        + " send the whole conversation as 'input' instead.", Map.of(), null));
    }

    private static ApiException notFound(String id) {
        return new ApiException(404, "invalid_request_error", "not_found", null, "No response with id '" + id
                + "' is stored (only the last responses are kept, in memory).", Map.of(), null);
    }

    /** Stores a finished response with its conversation and answer, unless the client said store: false. */
    private void keep(ResponsesRequest parsed, String id, List<ChatMessage> conversation, String content,
                      List<OutputEvent.ToolCall> calls, ObjectNode response) {
        if (!parsed.store()) {
            return;
        }
        List<ChatMessage> all = new ArrayList<>(conversation);
        all.add(new ChatMessage(Role.ASSISTANT, content, calls.stream()
                .map(c -> new ToolCallRecord(c.id(), c.name(), c.argumentsJson())).toList(), Optional.empty()));
        store.put(id, new ResponseStore.Stored(all, response));
    }

    /**
     * One streamed response as the API's events, each {@code event: <type>} with a JSON {@code data} carrying the
     * type and a {@code sequence_number}: response.created and response.in_progress; for each output item,
     * output_item.added, its part (content_part.added, or reasoning_summary_part.added), its deltas, their done
     * events, output_item.done; then response.completed (response.incomplete when the token limit cut the answer,
     * response.failed when the run failed after the stream started). Items open when their first piece comes and
     * close when a piece of another item comes or the answer ends.
     */
    private final class Events implements RunDriver.StreamFormat {
        private final String id;
        private final long created;
        private final String model;
        private final ResponsesRequest parsed;
        private final List<ChatMessage> conversation;
        private final ArrayNode output = mapper.createArrayNode();
        private final StringBuilder content = new StringBuilder();
        private final List<OutputEvent.ToolCall> calls = new ArrayList<>();
        /** What was sent of each streamed call's arguments, by the call's index. */
        private final Map<Integer, StringBuilder> streamedCalls = new HashMap<>();
        /** The streamed call whose item is open, and that item's position. */
        private OutputEvent.CallDelta openCall;
        private int openCallOutputIndex;
        private int sequence;
        /** The open item's kind (reasoning or message), its id and its text so far; null when none is open. */
        private String openKind;
        private String openId;
        private final StringBuilder openText = new StringBuilder();
        private boolean messageOpened;
        /** Tokens' log probabilities not sent yet (of reasoning, say), and those of the open message's text. */
        private final List<TokenProbability> unsentLogprobs = new ArrayList<>();
        private final List<TokenProbability> messageLogprobs = new ArrayList<>();

        Events(String id, long created, String model, ResponsesRequest parsed, List<ChatMessage> conversation) {
            this.id = id;
            this.created = created;
            this.model = model;
            this.parsed = parsed;
            this.conversation = conversation;
        }

        @Override
        public String contentType() {
            return "text/event-stream";
        }

        @Override
        public List<byte[]> opening() {
            ObjectNode response = objects.response(id, created, model, parsed.echo(), "in_progress",
                    mapper.createArrayNode(), null, Optional.empty());
            return List.of(send(event("response.created").set("response", response)),
                    send(event("response.in_progress").set("response", response)));
        }

        @Override
        public byte[] keepAlive() {
            return Sse.KEEP_ALIVE;
        }

        @Override
        public List<byte[]> output(OutputEvent e, List<TokenProbability> logprobs) {
            List<byte[]> out = new ArrayList<>();
            unsentLogprobs.addAll(logprobs); // the output text's to carry: what comes before it goes with it
            switch (e) {
                case OutputEvent.Reasoning r -> {
                    open("reasoning", out);
                    openText.append(r.text());
                    boolean summary = parsed.reasoningSummary();
                    ObjectNode delta = part(event(summary ? "response.reasoning_summary_text.delta"
                            : "response.reasoning_text.delta"));
                    out.add(send(delta.put("delta", r.text())));
                }
                case OutputEvent.Content c -> {
                    open("message", out);
                    openText.append(c.text());
                    content.append(c.text());
                    ObjectNode delta = part(event("response.output_text.delta")).put("delta", c.text());
                    delta.set("logprobs", LogprobsJson.entries(unsentLogprobs, false));
                    messageLogprobs.addAll(unsentLogprobs);
                    unsentLogprobs.clear();
                    out.add(send(delta));
                }
                case OutputEvent.ToolCall call -> {
                    close("completed", out);
                    calls.add(call);
                    if (streamedCalls.containsKey(call.index())) {
                        endStreamedCall(call, out);
                    } else {
                        functionCall(call, out);
                    }
                }
                case OutputEvent.CallDelta d -> {
                    close("completed", out);
                    callPiece(d, out);
                }
            }
            return out;
        }

        @Override
        public List<byte[]> finished(RunStep.Finished f, Run run) {
            String status = ResponseObjects.status(f.finishReason());
            List<byte[]> out = new ArrayList<>();
            if (!messageOpened && calls.isEmpty()) {
                // every answer that calls nothing has a message, an empty one included
                open("message", out);
            }
            close(status, out);
            ObjectNode response = objects.response(id, created, model, parsed.echo(), status, output, f.usage(),
                    Optional.empty());
            out.add(send(event(status.equals("completed") ? "response.completed" : "response.incomplete")
                    .set("response", response)));
            keep(parsed, id, conversation, content.toString(), calls, response);
            return out;
        }

        @Override
        public byte[] failed(ApiException error) {
            ObjectNode response = objects.response(id, created, model, parsed.echo(), "failed", output, null,
                    Optional.of(error));
            return send(event("response.failed").set("response", response));
        }

        /** Opens an item of {@code kind} (closing another open one): output_item.added and its first part. */
        private void open(String kind, List<byte[]> out) {
            if (kind.equals(openKind)) {
                return;
            }
            close("completed", out);
            openKind = kind;
            messageOpened |= kind.equals("message");
            openId = ResponseObjects.id(kind.equals("message") ? "msg" : "rs");
            openText.setLength(0);
            boolean summary = parsed.reasoningSummary();
            ObjectNode item = kind.equals("message") ? objects.message(openId, "", "in_progress")
                    : objects.reasoning(openId, "", summary, "in_progress");
            out.add(send(event("response.output_item.added").put("output_index", output.size()).set("item", item)));
            if (kind.equals("reasoning") && summary) {
                out.add(send(part(event("response.reasoning_summary_part.added"))
                        .set("part", objects.reasoningPart("", true))));
            } else {
                out.add(send(part(event("response.content_part.added")).set("part", kind.equals("message")
                        ? objects.outputText("") : objects.reasoningPart("", false))));
            }
        }

        /** Closes the open item, if any: the done events of its text and part, then output_item.done. */
        private void close(String status, List<byte[]> out) {
            if (openKind == null) {
                return;
            }
            String text = openText.toString();
            ObjectNode item;
            if (openKind.equals("message")) {
                ObjectNode done = part(event("response.output_text.done")).put("text", text);
                done.set("logprobs", LogprobsJson.entries(messageLogprobs, false));
                out.add(send(done));
                out.add(send(part(event("response.content_part.done")).set("part", objects.outputText(text,
                        messageLogprobs))));
                item = objects.message(openId, text, status, messageLogprobs);
                messageLogprobs.clear();
            } else if (parsed.reasoningSummary()) {
                out.add(send(part(event("response.reasoning_summary_text.done")).put("text", text)));
                out.add(send(part(event("response.reasoning_summary_part.done"))
                        .set("part", objects.reasoningPart(text, true))));
                item = objects.reasoning(openId, text, true, "completed");
            } else {
                out.add(send(part(event("response.reasoning_text.done")).put("text", text)));
                out.add(send(part(event("response.content_part.done")).set("part", objects.reasoningPart(text,
                        false))));
                item = objects.reasoning(openId, text, false, "completed");
            }
            out.add(send(event("response.output_item.done").put("output_index", output.size()).set("item", item)));
            output.add(item);
            openKind = null;
        }

        /**
         * A piece of a call under way: its item is added with the first (the previous streamed call's item done,
         * its arguments whole by then), each piece of its arguments is a delta.
         */
        private void callPiece(OutputEvent.CallDelta d, List<byte[]> out) {
            StringBuilder sent = streamedCalls.get(d.index());
            if (sent == null) {
                if (openCall != null) {
                    endCallItem(streamedCalls.get(openCall.index()).toString(), out);
                }
                openCall = d;
                openCallOutputIndex = output.size();
                sent = new StringBuilder();
                streamedCalls.put(d.index(), sent);
                callAdded(new OutputEvent.ToolCall(d.index(), d.id(), d.name(), ""), openCallOutputIndex, out);
            }
            sent.append(d.arguments());
            if (!d.arguments().isEmpty() && openCall != null && openCall.index() == d.index()) {
                argumentsDelta(openCall.id(), openCallOutputIndex, d.arguments(), out);
            }
        }

        /** A streamed call complete: the rest of its arguments and its item's done events, if still open. */
        private void endStreamedCall(OutputEvent.ToolCall call, List<byte[]> out) {
            String sent = streamedCalls.get(call.index()).toString();
            if (openCall == null || openCall.index() != call.index()) {
                return; // its item was done when the next call started
            }
            String rest = call.argumentsJson().substring(sent.length());
            if (!rest.isEmpty()) {
                argumentsDelta(call.id(), openCallOutputIndex, rest, out);
            }
            endCallItem(call.argumentsJson(), out);
        }

        /** The open streamed call's item done, with {@code arguments}. */
        private void endCallItem(String arguments, List<byte[]> out) {
            callDone(new OutputEvent.ToolCall(openCall.index(), openCall.id(), openCall.name(), arguments),
                    openCallOutputIndex, out);
            openCall = null;
        }

        /** A whole function call item: added, its arguments as one delta, their done event, done. */
        private void functionCall(OutputEvent.ToolCall call, List<byte[]> out) {
            int index = output.size();
            callAdded(call, index, out);
            argumentsDelta(call.id(), index, call.argumentsJson(), out);
            callDone(call, index, out);
        }

        /** A function call item at {@code index} is added, in progress. */
        private void callAdded(OutputEvent.ToolCall call, int index, List<byte[]> out) {
            out.add(send(event("response.output_item.added").put("output_index", index)
                    .set("item", objects.functionCall(call, "in_progress", parsed.namespaces()))));
        }

        private void argumentsDelta(String callId, int index, String delta, List<byte[]> out) {
            out.add(send(event("response.function_call_arguments.delta")
                    .put("item_id", ResponseObjects.functionCallId(callId)).put("output_index", index)
                    .put("delta", delta)));
        }

        /** The call's arguments done, and its item done and kept in the response's output. */
        private void callDone(OutputEvent.ToolCall call, int index, List<byte[]> out) {
            out.add(send(event("response.function_call_arguments.done")
                    .put("item_id", ResponseObjects.functionCallId(call)).put("output_index", index)
                    .put("name", call.name()).put("arguments", call.argumentsJson())));
            ObjectNode item = objects.functionCall(call, "completed", parsed.namespaces());
            out.add(send(event("response.output_item.done").put("output_index", index).set("item", item)));
            output.add(item);
        }

        /** The open item's position: item_id, output_index, and content_index (summary_index for a summary). */
        private ObjectNode part(ObjectNode event) {
            event.put("item_id", openId);
            event.put("output_index", output.size());
            event.put(openKind.equals("reasoning") && parsed.reasoningSummary() ? "summary_index" : "content_index", 0);
            return event;
        }

        private ObjectNode event(String type) {
            return mapper.createObjectNode().put("type", type);
        }

        private byte[] send(ObjectNode event) {
            event.put("sequence_number", sequence++);
            return Sse.event(mapper, event.get("type").asText(), event);
        }
    }
}
