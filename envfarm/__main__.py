import sys

from envfarm.cli import main

sys.exit(main())
