# pytester runs each user's test file in its own pytest process (test_plugin.py).
pytest_plugins = ["pytester"]
