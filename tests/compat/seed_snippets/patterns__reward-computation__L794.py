def step(self, action: MyAction) -> MyObservation:
    # Execute action
    new_state = self._apply_action(action)

    # Compute reward inside environment
    reward = self._compute_reward(new_state)

    return MyObservation(
        state=new_state,
        reward=reward,
        done=self._is_terminal(new_state)
    )
