"""Many conversations on one ``create_agent`` agent, and the ``search_skills`` tool."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from skillpath_langchain import SkillsMiddleware

from .conftest import World


class Reactive(GenericFakeChatModel):
    """Calls ``Skill`` greet (args from the user message) after each user message, then
    answers ``done``: the same replies whatever order conversations run in."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        last = messages[-1]
        if isinstance(last, HumanMessage):
            n = sum(isinstance(m, HumanMessage) for m in messages)
            reply = AIMessage(
                content="",
                tool_calls=[
                    {"name": "Skill", "args": {"skill": "greet", "args": "Ada"}, "id": f"c{n}"}
                ],
            )
        else:
            reply = AIMessage(content="done")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def skill_answers(result: dict[str, Any]) -> list[str]:
    return [str(m.content) for m in result["messages"] if isinstance(m, ToolMessage)]


def agent_for(world: World, **kwargs: Any) -> Any:
    model = Reactive(messages=iter(()))
    return create_agent(model, tools=[], middleware=[SkillsMiddleware(cwd=world.project)], **kwargs)


def test_a_second_conversation_gets_the_skill(world: World) -> None:
    """Before: the second conversation got "already loaded … follow the instructions it gave
    earlier" for a skill it never saw."""
    agent = agent_for(world)
    for _ in range(2):  # one after the other, no thread id: each run its own conversation
        (answer,) = skill_answers(agent.invoke({"messages": [HumanMessage("hi")]}))
        assert "Say hello to Ada." in answer


def test_the_note_holds_within_one_thread_only(world: World) -> None:
    agent = agent_for(world, checkpointer=InMemorySaver())
    one = {"configurable": {"thread_id": "one"}}
    first = skill_answers(agent.invoke({"messages": [HumanMessage("hi")]}, one))
    assert "Say hello to Ada." in first[0]
    again = skill_answers(agent.invoke({"messages": [HumanMessage("again")]}, one))
    assert "already loaded" in again[-1]  # same thread: the text is still in it
    two = {"configurable": {"thread_id": "two"}}
    other = skill_answers(agent.invoke({"messages": [HumanMessage("hi")]}, two))
    assert "Say hello to Ada." in other[0]


def test_concurrent_conversations_each_get_the_skill(world: World) -> None:
    agent = agent_for(world, checkpointer=InMemorySaver())
    configs = [{"configurable": {"thread_id": f"t{i}"}} for i in range(12)]
    results = agent.batch([{"messages": [HumanMessage("hi")]}] * 12, configs)
    for result in results:
        (answer,) = skill_answers(result)
        assert "Say hello to Ada." in answer


def test_the_model_searches_then_calls_the_skill(world: World) -> None:
    from .conftest import scripted

    model = scripted(
        AIMessage(
            content="",
            tool_calls=[
                {"name": "search_skills", "args": {"query": "review a code change"}, "id": "s1"}
            ],
        ),
        AIMessage(
            content="", tool_calls=[{"name": "Skill", "args": {"skill": "code-review"}, "id": "s2"}]
        ),
        AIMessage(content="done"),
    )
    mw = SkillsMiddleware(cwd=world.project, budget=400)
    agent = create_agent(model, tools=[], middleware=[mw])
    result = agent.invoke({"messages": [HumanMessage("review my change")]})
    found, skill = skill_answers(result)
    assert found.splitlines()[1].startswith("- code-review:")
    assert "Review the change" in skill
    names = {t["function"]["name"] if isinstance(t, dict) else t.name for t in model.tools_seen[0]}
    assert {"Skill", "search_skills"} <= names
    system = str(model.seen[0][0].content)
    assert "search_skills" in system  # the over-budget notice names the tool
