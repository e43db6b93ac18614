"""A real producer of OpenTelemetry GenAI telemetry, in Python: the official `openai` client
instrumented by OpenTelemetry's opentelemetry-instrumentation-openai-v2, on the latest
experimental GenAI conventions with content on spans and in events (`span_and_event`).

The SDK's OTLP exporters for Python speak protobuf only, so spans and log records are written
the way the Collector's file exporter writes them: each export request encoded with the SDK's
own OTLP encoder, turned into OTLP/JSON (camelCase fields, 64-bit integers as strings, enums
as integers, trace and span ids in hex as the OTLP/JSON spec requires), one request a line.

    python openai_otel.py PLAN.json
    PLAN: {"baseURL": "http://127.0.0.1:PORT/v1", "out": "/path/prefix",
           "chats": [{"tenant", "session", "messages", "stream", "includeUsage", "maxTokens"}]}

Writes PREFIX-traces.jsonl and PREFIX-logs.jsonl; prints what the client received as one JSON
line on stdout.
"""

import base64
import json
import os
import sys

os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_and_event")

from google.protobuf.json_format import MessageToDict  # noqa: E402
from opentelemetry import trace  # noqa: E402
from opentelemetry._logs import set_logger_provider  # noqa: E402
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor  # noqa: E402
from opentelemetry.sdk._logs import LoggerProvider  # noqa: E402
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, LogRecordExportResult  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult  # noqa: E402

ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def hex_ids(node):
    """protobuf's JSON mapping writes bytes as base64; OTLP/JSON wants trace and span ids in hex."""
    if isinstance(node, dict):
        return {k: (base64.b64decode(v).hex() if k in ID_KEYS and isinstance(v, str) else hex_ids(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [hex_ids(v) for v in node]
    return node


def write_request(path, message):
    doc = hex_ids(MessageToDict(message, use_integers_for_enums=True))
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n")


class FileSpanExporter(SpanExporter):
    def __init__(self, path):
        self.path = path

    def export(self, spans):
        write_request(self.path, encode_spans(spans))
        return SpanExportResult.SUCCESS

    def shutdown(self):
        pass


class FileLogExporter:
    def __init__(self, path):
        self.path = path

    def export(self, batch):
        write_request(self.path, encode_logs(batch))
        return LogRecordExportResult.SUCCESS

    def shutdown(self):
        pass

    def force_flush(self, timeout_millis=30000):
        return True


def main():
    plan = json.load(open(sys.argv[1], encoding="utf-8"))
    out = plan["out"]
    resource = Resource.create({"service.name": "crosstalk-producer-py"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(FileSpanExporter(out + "-traces.jsonl"), max_export_batch_size=4))
    trace.set_tracer_provider(tracer_provider)
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(BatchLogRecordProcessor(FileLogExporter(out + "-logs.jsonl"), max_export_batch_size=5))
    set_logger_provider(logger_provider)
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)

    import openai

    client = openai.OpenAI(base_url=plan["baseURL"], api_key="unused", max_retries=0, timeout=30)
    tracer = trace.get_tracer("crosstalk-producer")
    received = []
    for chat in plan["chats"]:
        entry = {"tenant": chat["tenant"], "session": chat["session"], "text": "", "error": None}
        with tracer.start_as_current_span("conversation turn", attributes={"tenant.id": chat["tenant"], "session.id": chat["session"]}):
            params = {"model": "crosstalk-testbed", "messages": chat["messages"], "max_tokens": chat.get("maxTokens") or 64}
            try:
                if chat.get("stream"):
                    extra = {"stream_options": {"include_usage": True}} if chat.get("includeUsage") else {}
                    for chunk in client.chat.completions.create(stream=True, **params, **extra):
                        if chunk.choices and chunk.choices[0].delta and chunk.choices[0].delta.content:
                            entry["text"] += chunk.choices[0].delta.content
                else:
                    completion = client.chat.completions.create(**params)
                    entry["text"] = completion.choices[0].message.content or ""
            except openai.APIError as error:
                entry["error"] = str(error)
        received.append(entry)
    tracer_provider.shutdown()
    logger_provider.shutdown()
    print(json.dumps(received))


if __name__ == "__main__":
    main()
