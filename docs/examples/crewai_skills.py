"""Give a CrewAI agent, or a whole crew, every skill the user has (docs/integrations/crewai.md).

``make_agent`` and ``make_crew`` are all the wiring there is; the docs test
runs them with an offline LLM. Run this file to talk to a real model (it
needs ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from crewai import Agent, BaseLLM, Crew, Task
from skillpath_crewai import SkillpathSkills


def make_agent(llm: BaseLLM | str = "gpt-4.1-mini", project: str | Path = ".") -> Agent:
    """A CrewAI ``Agent`` whose skills (prompt block and ``load_skill``) come from skillpath,
    with skillpath's ``read_skill`` and ``search_skills`` tools."""
    skills = SkillpathSkills(cwd=project)
    return Agent(
        role="Coding agent",
        goal="Help with the repository",
        backstory="You are a careful coding agent.",
        llm=llm,
        skills=skills.skills(),
        tools=skills.tools(),
    )


def make_crew(request: str, llm: BaseLLM | str = "gpt-4.1-mini", project: str | Path = ".") -> Crew:
    """A one-task ``Crew``; its skills (skillpath's) reach every agent in it."""
    agent = Agent(role="Reviewer", goal="Review changes", backstory="You review code.", llm=llm)
    task = Task(description=request, expected_output="A short answer", agent=agent)
    return Crew(agents=[agent], tasks=[task], skills=SkillpathSkills(cwd=project).skills())


if __name__ == "__main__":
    print(make_agent().kickoff(" ".join(sys.argv[1:])))
