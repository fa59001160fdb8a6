"""python -m pipesmith.cli"""

import sys

from pipesmith.cli.app import app

sys.exit(app())
