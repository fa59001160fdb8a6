"""Chat-model construction: one ChatOpenAI per agent, from data, never at import time."""

from __future__ import annotations

from pipesmith.agents.llm.config import LLMConfig, ModelSettings

# Local servers (vLLM, Ollama, LM Studio, llama.cpp) accept any key; the client insists on one.
PLACEHOLDER_KEY = "not-needed"


def chat_model(config: LLMConfig, settings: ModelSettings, http_client=None):
    """A ChatOpenAI speaking the chat-completions API (never the Responses API, which
    OpenAI-compatible servers do not implement), with the agent's settings."""
    from langchain_openai import ChatOpenAI

    key = config.api_key.get_secret_value() if config.api_key else None
    if key is None and config.base_url is None:
        raise ValueError("no API key: set OPENAI_API_KEY (or PIPESMITH_LLM_API_KEY), "
                         "or point --base-url at a local server")
    return ChatOpenAI(
        model=config.model,
        base_url=config.base_url,
        api_key=key or PLACEHOLDER_KEY,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
        stream_usage=True,  # ask for the final usage chunk when streaming
        use_responses_api=False,
        http_client=http_client,
    )
