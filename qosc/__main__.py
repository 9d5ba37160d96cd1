import sys

from qosc.cli import main

sys.exit(main())
