"""``python -m skillpath`` runs the command-line interface."""

from skillpath.cache.launch import main

if __name__ == "__main__":
    main()
