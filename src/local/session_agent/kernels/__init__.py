# The kernels of code contexts, each a program of its own language kept in a file of its own here, and run
# from its text (python -c, node -e, bash -c: nothing is written into the sandbox for them):
# - python_kernel.py: `python -I -B -X utf8 -c <text> <in fd> <out fd> <ipython|plain>`
# - javascript_kernel.js: `node -e <text> <in fd> <out fd> <javascript|typescript>`
# - bash_kernel.sh: `/bin/bash --norc --noprofile -c <text> bash <in fd> <out fd>`
# Their protocol with the agent: session_agent/contexts.py (Context.send, Context.on_control) and cells.py.


def source(name):
    """The text of the kernel file `name`, as the build bundled it (launch.py's AgentModules)."""
    return __spec__.loader.files["session_agent/kernels/" + name]
