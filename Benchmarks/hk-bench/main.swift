print("hk-bench")
