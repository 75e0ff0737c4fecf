def step(self, action: MyAction) -> MyObservation:
    try:
        result = self._execute(action)
        return MyObservation(result=result, error=None, done=False)
    except InvalidAction as e:
        return MyObservation(result="", error=str(e), done=False)
    except FatalError as e:
        return MyObservation(result="", error=str(e), done=True)
