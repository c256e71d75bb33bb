from rummy_referee.cli import main

raise SystemExit(main())
