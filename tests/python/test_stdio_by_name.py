"""A program opens its own stdin, stdout and stderr by name (/dev/stdin, /dev/stdout, /dev/stderr, i.e.
/proc/self/fd/N), warm and cold: the pipes belong to the host's root, which the sandbox does not map, and were
mode 0600 until src/local/fd.cpp's make_stdio_pipe made them 0666 (EACCES before: `cat /dev/stdin`,
`echo > /dev/stderr`, Node's readFileSync('/dev/stdin'), common in stdin/stdout answers)."""

import pytest

import e2beval

PROGRAMS = {
    "python": "import sys\ndata = open('/dev/stdin').read()\nopen('/dev/stdout', 'w').write(data.upper())\n"
              "open('/dev/stderr', 'w').write('to stderr\\n')\n",
    "bash": "tr a-z A-Z < /dev/stdin > /dev/stdout\necho 'to stderr' > /dev/stderr\n",
    "javascript": "const fs = require('fs');\nfs.writeFileSync('/dev/stdout', fs.readFileSync('/dev/stdin', 'utf8').toUpperCase());\n"
                  "fs.writeFileSync('/dev/stderr', 'to stderr\\n');\n",
}


# The warm pool serves Python; the other languages always run cold.
@pytest.mark.parametrize("language,pool", [("python", True), ("python", False), ("bash", False), ("javascript", False)],
                         ids=["python-warm", "python-cold", "bash", "javascript"])
def test_a_program_opens_its_standard_streams_by_name(language, pool):
    result = e2beval.execute(PROGRAMS[language], language=language, stdin="two words\n", pool=pool)
    assert result["outcome"] == "ok", result
    assert result["stdout"] == "TWO WORDS\n"
    assert result["stderr"] == "to stderr\n"
