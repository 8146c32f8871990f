"""`python tests/fakes/agent.py SCENARIO`: the scripted fake ACP agent.

The agent is `tests/fakes/scripted_agent.py` (its docstring lists the scenarios);
this launcher only runs its `main()`. A script run by its path is compiled from
source at every start, bytecode is cached only for imported modules: the agent's
1,900 lines took ~10 ms of CPU to compile at each of the suite's starts of it.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: the checkout is not on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.fakes.scripted_agent import main

    main()
