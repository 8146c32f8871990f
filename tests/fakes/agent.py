"""`python tests/fakes/agent.py SCENARIO`: the scripted fake ACP agent.

The agent is `tests/fakes/scripted_agent.py` (its docstring lists the scenarios);
this launcher only runs its `main()`. A script run by its path is compiled from
source at every start, bytecode is cached only for imported modules: the agent's
1,900 lines took ~10 ms of CPU to compile at each of the suite's starts of it.

The fake agents are started hundreds of times by the suite and import only
what they use: no `pathlib` here (`os.path` finds the checkout), and no
`typing` at run time in any of them (`TYPE_CHECKING = False`, then the typing
names under `if TYPE_CHECKING:`, which type checkers read as
`typing.TYPE_CHECKING`): each of the two imports was ~3 ms of CPU per start.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # run as a script: the checkout is not on the path
    sys.path.insert(
        0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    )
    from tests.fakes.scripted_agent import main

    main()
