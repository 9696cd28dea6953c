"""Give a LlamaIndex agent every skill the user has (docs/integrations/llamaindex.md).

``make_agent`` is all the wiring there is; the docs test runs it with
LlamaIndex's offline mock LLM. Run this file to talk to a real model (it needs
``llama-index-llms-openai`` and ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from llama_index.core.agent.workflow import BaseWorkflowAgent, FunctionAgent
from llama_index.core.llms.function_calling import FunctionCallingLLM
from skillpath_llamaindex import SkillpathSkills


def make_agent(llm: FunctionCallingLLM, project: str | Path = ".") -> BaseWorkflowAgent:
    """A ``FunctionAgent`` with the skill tools and the listing in its system prompt."""
    skills = SkillpathSkills(cwd=project)
    agent = FunctionAgent(
        tools=skills.tools, llm=llm, system_prompt="You are a careful coding agent."
    )
    return skills.attach(agent)


if __name__ == "__main__":
    from llama_index.llms.openai import OpenAI

    async def main() -> None:
        print(await make_agent(OpenAI(model="gpt-4.1")).run(user_msg=" ".join(sys.argv[1:])))

    asyncio.run(main())
