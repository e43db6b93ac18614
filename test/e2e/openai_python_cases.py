"""The official openai Python client against a crosstalk testbed: runs each case and prints one
JSON object per case (error class, status, message, type/param/code, HTTP requests made), for
test/testbed/openai-python.test.ts to judge. Usage: python3 openai_python_cases.py URL STYLE"""

import json
import sys

import openai

URL, STYLE = sys.argv[1], sys.argv[2]
MODEL = "crosstalk-testbed"


def words(n):
    return " ".join(f"w{i}" for i in range(n))


def client():
    calls = {"n": 0}

    def count(_request):
        calls["n"] += 1

    # The client's own HTTP client class (httpx, or httpx2 in later releases), counting requests.
    http = openai.DefaultHttpxClient(event_hooks={"request": [count]})
    # Bounded: the default is 10 minutes a request, and a hang would hold the test run.
    return openai.OpenAI(base_url=f"{URL}/v1", api_key="unused", max_retries=2, timeout=30, http_client=http), calls


def run(name, action):
    c, calls = client()
    out = {"case": name}
    try:
        value = action(c)
        out.update({"class": None, "value": value})
    except openai.APIError as e:
        out.update(
            {
                "class": type(e).__name__,
                "status": getattr(e, "status_code", None),
                "message": e.message,
                "type": e.type,
                "param": e.param,
                "code": e.code,
            }
        )
    out["calls"] = calls["n"]
    print(json.dumps(out))


def chat(**body):
    return lambda c: c.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}], **body).model_dump()


def raw_post(body):
    return lambda c: c.post("/chat/completions", body=body, cast_to=object)


def drain(c):
    stream = c.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": words(400)}], max_tokens=16, stream=True)
    for _ in stream:
        pass
    return "drained"


if STYLE == "vllm":
    run("max_tokens_0", chat(max_tokens=0))
    run("cache_salt_empty", chat(extra_body={"cache_salt": ""}))
    run("no_messages", raw_post({"model": MODEL}))
    run("unknown_model", lambda c: c.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}]).model_dump())
    run("over_window", lambda c: c.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": words(6010)}]).model_dump())
    run("no_max_tokens", lambda c: c.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": words(5990)}]).usage.model_dump())
    run("n_2", lambda c: [ch.index for ch in c.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=8, n=2).choices])
    run("unknown_route", lambda c: c.get("/nope", cast_to=object))
else:
    run("over_pool", lambda c: c.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": words(400)}], max_tokens=16).model_dump())
    run("over_pool_stream", drain)
